#!/usr/bin/env python3
"""Models exported by PyTorch (`torch.onnx.export`, Debian's python3-torch):
an MLP, a CNN with batch norm and pooling, and a small transformer encoder
block (LayerNorm, attention with Softmax, GELU through Erf, reshapes
computed from the input's shape), a causal GPT block (embeddings, a masked
attention), an upsampler (Resize nearest and bilinear), a scripted model
with a for loop, a while loop and an if (Loop, If), a scripted recurrence
over a dynamic sequence length, nn.LSTM into nn.GRU, all with a dynamic
batch, each compiled by
`rlxc model.onnx`, run by rlx-run with the weights rlxc wrote and compared
with PyTorch's own output (relative 1e-4); and a classifier with a
cross-entropy head compiled with `--value-and-grad main`, its loss and
gradients against PyTorch's autograd.
Skipped (exit 77) when torch is not installed.

Usage: onnx_torch_test.py RLXC RLX_RUN SCRATCH_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import close, compile_and_run, require  # noqa: E402

np = require("numpy")
torch = require("torch")
require("onnx")
nn = torch.nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 32)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = torch.tanh(self.fc2(h))
        return torch.log_softmax(self.out(h), dim=-1)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = nn.functional.max_pool2d(x, 2)
        x = torch.relu(self.bn2(self.conv2(x)))
        x = nn.functional.leaky_relu(self.dw(x), 0.1)
        x = nn.functional.avg_pool2d(x, 2)
        x = nn.functional.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class Encoder(nn.Module):
    """One pre-norm transformer block, batch 2, sequence 6, width 16."""

    def __init__(self, d=16, heads=4):
        super().__init__()
        self.heads, self.d = heads, d
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, 4 * d)
        self.ff2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        def heads(t):
            return t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, -1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.ff2(nn.functional.gelu(self.ff1(self.ln2(x))))


class Classifier(nn.Module):
    """An MLP with a cross-entropy head (log_softmax against one-hot labels),
    for fine-tuning: `rlxc --value-and-grad main`."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x, labels):
        logits = self.fc2(torch.relu(self.fc1(x)))
        return -(torch.log_softmax(logits, -1) * labels).sum(-1).mean()


def check_fine_tuning(rlxc, rlx_run, d):
    """The gradient of an imported loss with respect to every initializer,
    against PyTorch's autograd."""
    from onnx_common import read_safetensors, run
    model = Classifier()
    x = torch.randn(5, 12)
    labels = nn.functional.one_hot(torch.tensor([0, 3, 1, 1, 2]), 4).float()
    path = os.path.join(d, "classifier.onnx")
    torch.onnx.export(model, (x, labels), path, input_names=["x", "labels"],
                      output_names=["loss"], opset_version=14)
    so = os.path.join(d, "classifier.so")
    run([rlxc, path, "-o", so, "--value-and-grad", "main"])
    np.save(os.path.join(d, "x.npy"), x.numpy())
    np.save(os.path.join(d, "labels.npy"), labels.numpy())
    out = os.path.join(d, "classifier.grads.safetensors")
    run([rlx_run, so, "--fn", "main_value_and_grad", "--weights",
         os.path.join(d, "classifier.safetensors"),
         "--input", "x=" + os.path.join(d, "x.npy"),
         "--input", "labels=" + os.path.join(d, "labels.npy"), "--outputs", out])
    got = read_safetensors(out)
    loss = model(x, labels)
    loss.backward()
    failures = 0
    expected = {"value": loss.detach().numpy()}
    for name, p in model.named_parameters():
        expected["grad." + name] = p.grad.numpy()
    for name, value in expected.items():
        msg = close(value, got[name]) if name in got else \
            f"missing (outputs: {sorted(got)})"
        print(("FAIL " if msg else "ok   ") + f"classifier --value-and-grad {name}" +
              (f": {msg}" if msg else ""))
        failures += bool(msg)
    return failures


class Upsampler(nn.Module):
    """Resize: nearest (scale 2), bilinear (half-pixel and align_corners)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)

    def forward(self, x):
        x = nn.functional.interpolate(x, scale_factor=2, mode="nearest")
        x = self.conv(x)
        a = nn.functional.interpolate(x, size=(7, 5), mode="bilinear",
                                      align_corners=False)
        b = nn.functional.interpolate(x, size=(7, 5), mode="bilinear",
                                      align_corners=True)
        return a + 2 * b


class GPTBlock(nn.Module):
    """Token and position embeddings, one causal self-attention block
    (masked_fill with a lower-triangular buffer), a language-model head."""

    def __init__(self, vocab=50, d=16, heads=2, seq=8):
        super().__init__()
        self.heads = heads
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.ln = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)))

    def forward(self, ids):
        b, t = ids.shape
        x = self.tok(ids) + self.pos(torch.arange(t))
        q, k, v = self.attn(self.ln(x)).chunk(3, dim=-1)
        hd = q.shape[-1] // self.heads
        q, k, v = (z.reshape(b, t, self.heads, hd).transpose(1, 2)
                   for z in (q, k, v))
        att = (q @ k.transpose(-1, -2)) * hd ** -0.5
        att = att.masked_fill(self.mask[:t, :t] == 0, float("-inf"))
        y = (torch.softmax(att, -1) @ v).transpose(1, 2).reshape(b, t, -1)
        return self.head(x + self.proj(y))


class Looped(nn.Module):
    """Control flow TorchScript keeps: a `for` over a size known at export
    (an ONNX Loop with a constant trip count), a `while` whose condition
    reads the dynamic batch (a Loop with a computed condition and a shape
    read as data), an `if` (If), and zeros_like of a dynamic batch
    (ConstantOfShape of a run-time shape). Exported scripted."""
    scripted = True

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(6, 6)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        h = torch.zeros_like(x[:, 0])
        for t in range(x.size(1)):
            h = torch.tanh(self.cell(x[:, t]) + h)
        while bool(h.abs().sum() < 50.0 * h.size(0)):
            h = h * 1.5
        if bool(h.mean() > 0):
            y = self.head(h)
        else:
            y = self.head(-h)
        return y


class RNN(nn.Module):
    """A recurrence over a dynamic sequence length (`range(x.size(1))`: an
    ONNX Loop whose trip count is a dynamic dim), exported scripted."""
    scripted = True
    dynamic_axes = {"input": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(6, 6)
        self.state = nn.Linear(6, 6, bias=False)

    def forward(self, x):
        h = torch.zeros_like(x[:, 0])
        for t in range(x.size(1)):
            h = torch.tanh(self.cell(x[:, t]) + self.state(h))
        return h


class Recurrent(nn.Module):
    """nn.LSTM (two layers, both directions) into nn.GRU (PyTorch's GRU is
    ONNX's linear_before_reset), batch first, over a dynamic batch and
    sequence length: ONNX LSTM and GRU nodes."""
    dynamic_axes = {"input": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.gru = nn.GRU(16, 5, batch_first=True)
        self.head = nn.Linear(5 + 5 + 8 + 8, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, g = self.gru(y)
        return self.head(torch.cat([z[:, -1], g[0], h[-1], c[0]], dim=1))


def export(model, example, path, dynamic):
    model.eval()
    kwargs = {}
    if dynamic:
        kwargs["dynamic_axes"] = getattr(
            model, "dynamic_axes",
            {"input": {0: "batch"}, "logits": {0: "batch"}})
    if getattr(model, "scripted", False):
        model = torch.jit.script(model)
    torch.onnx.export(model, example, path, input_names=["input"],
                      output_names=["logits"], opset_version=14, **kwargs)


def randomize_batch_norms(model):
    """Running statistics away from 0/1, so inference batch norm matters."""
    g = torch.Generator().manual_seed(0)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)


def main():
    rlxc, rlx_run, d = sys.argv[1:4]
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    cases = [("mlp", MLP(), lambda b: torch.randn(b, 20), True),
             ("cnn", CNN(), lambda b: torch.randn(b, 3, 16, 16), True),
             ("encoder", Encoder(), lambda b: torch.randn(b, 6, 16), True),
             ("gpt", GPTBlock(), lambda b: torch.randint(0, 50, (b, 8)), True),
             ("upsample", Upsampler(), lambda b: torch.randn(b, 2, 4, 3), True),
             ("looped", Looped(), lambda b: torch.randn(b, 5, 6), True),
             # Sequence lengths 3, 5 and 10 with the batches.
             ("rnn", RNN(), lambda b: torch.randn(b, b + 2, 6), True),
             ("lstm-gru", Recurrent(), lambda b: torch.randn(b, 2 * b + 1, 6),
              True)]
    failures = 0
    for name, model, make, dynamic in cases:
        randomize_batch_norms(model)
        model.eval()
        path = os.path.join(d, name + ".onnx")
        export(model, make(2), path, dynamic)
        batches = [1, 3, 8] if dynamic else [2]
        inputs = [make(b) for b in batches]
        try:
            results = compile_and_run(rlxc, rlx_run, path,
                                      [{"input": x.numpy()} for x in inputs])
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {name}: {e}")
            failures += 1
            continue
        for b, x, got in zip(batches, inputs, results):
            with torch.no_grad():
                expected = model(x).numpy()
            msg = close(expected, got["logits"], rtol=1e-4, atol=1e-5)
            print(("FAIL " if msg else "ok   ") + f"{name} batch {b}" +
                  (f": {msg}" if msg else ""))
            failures += bool(msg)
    try:
        failures += check_fine_tuning(rlxc, rlx_run, d)
    except Exception as e:  # noqa: BLE001
        print(f"FAIL classifier --value-and-grad: {e}")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

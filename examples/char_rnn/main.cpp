//===- main.cpp - A character-level LSTM language model ------------------===//
///
/// \file
/// Trains an LSTM (rlx::lstm, an rlx.scan over the characters) on a text
/// every Debian system ships (the GPL-3 among its common licenses) with
/// the compiled Adam step, dropout on the LSTM's outputs keyed by the PRNG
/// key the step threads, a progress bar and a loss curve; then samples text
/// with `random::categorical` inside one compiled generation loop (a scan
/// whose steps each feed the sampled character back), and writes what a
/// deployment needs: the weights, the generator as MLIR for rlxc, its
/// inputs as .npy files for rlx-run, and the ids it generated in process.
/// Prints the text's unigram entropy beside the loss (both in nats per
/// character): the model must do well below it.
///
//===----------------------------------------------------------------------===//

#include "rlx/frontend.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

constexpr int64_t kEmbed = 32, kHidden = 128, kSteps = 48, kBatch = 32;

struct Corpus {
  std::vector<int32_t> ids;
  std::vector<unsigned char> vocab; // id -> byte
};

Corpus readCorpus(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw rlx::Error("cannot read the text '" + path + "'");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (text.size() < size_t(kSteps + 2))
    throw rlx::Error("the text '" + path + "' is too short");
  std::array<int, 256> index;
  index.fill(-1);
  Corpus c;
  for (unsigned char ch : text)
    if (index[ch] < 0) {
      index[ch] = 0;
      c.vocab.push_back(ch);
    }
  std::sort(c.vocab.begin(), c.vocab.end());
  for (size_t i = 0; i < c.vocab.size(); ++i)
    index[c.vocab[i]] = static_cast<int>(i);
  for (unsigned char ch : text)
    c.ids.push_back(index[ch]);
  return c;
}

/// Entropy (nats) of the characters' frequencies: a model that ignores
/// context does no better.
double unigramEntropy(const Corpus &c) {
  std::vector<double> counts(c.vocab.size());
  for (int32_t id : c.ids)
    counts[id] += 1;
  double h = 0;
  for (double n : counts)
    if (n > 0) {
      double p = n / c.ids.size();
      h -= p * std::log(p);
    }
  return h;
}

/// Logits [T, B, V] of ids [T, B] (embedding, LSTM, dropout, projection).
rlx::Tensor logits(rlx::Scope &s, const rlx::Tensor &ids, const rlx::Tensor &h0,
                   const rlx::Tensor &c0, int64_t vocab,
                   const rlx::Tensor &key, bool train) {
  rlx::Tensor table = s.param("embed.weight", {vocab, kEmbed});
  rlx::Tensor x = rlx::gather(table, ids, 0); // [T, B, E]
  rlx::LSTMResult r = rlx::lstm(s, "lstm", x, h0, c0);
  rlx::Tensor ys = key.valid() ? rlx::dropout(key, r.ys, 0.1, train) : r.ys;
  return rlx::linear(s, "head", ys, vocab);
}

void writeSvg(const std::string &path, const std::vector<double> &losses,
              double entropy) {
  double hi = entropy;
  for (double l : losses)
    hi = std::max(hi, l);
  auto y = [&](double v) { return 320 - 300.0 * v / hi; };
  std::ofstream svg(path);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
         "height=\"360\" viewBox=\"0 0 640 360\">\n"
      << "<rect width=\"640\" height=\"360\" fill=\"white\"/>\n"
      << "<line x1=\"50\" y1=\"320\" x2=\"620\" y2=\"320\" stroke=\"black\"/>\n"
      << "<line x1=\"50\" y1=\"20\" x2=\"50\" y2=\"320\" stroke=\"black\"/>\n"
      << "<text x=\"335\" y=\"350\" text-anchor=\"middle\">step</text>\n"
      << "<text x=\"10\" y=\"170\" transform=\"rotate(-90 10 170)\" "
         "text-anchor=\"middle\">loss (nats/char)</text>\n"
      << "<line x1=\"50\" x2=\"620\" y1=\"" << y(entropy) << "\" y2=\""
      << y(entropy) << "\" stroke=\"gray\" stroke-dasharray=\"4\"/>\n"
      << "<text x=\"615\" y=\"" << y(entropy) - 4
      << "\" text-anchor=\"end\" font-size=\"10\">unigram entropy</text>\n"
      << "<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" "
         "points=\"";
  for (size_t i = 0; i < losses.size(); ++i)
    svg << 50 + 570.0 * (losses.size() > 1 ? double(i) / (losses.size() - 1)
                                           : 0)
        << "," << y(losses[i]) << " ";
  svg << "\"/>\n</svg>\n";
}

void progress(int step, int steps, double loss) {
  int width = 30, done = width * step / steps;
  std::printf("\rstep %4d/%d [%s%s] loss %.4f", step, steps,
              std::string(done, '#').c_str(), std::string(width - done, '.').c_str(),
              loss);
  if (step == steps)
    std::printf("\n");
  std::fflush(stdout);
}

/// A deterministic generator for batch offsets (the same on every machine).
struct Rng {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  }
};

} // namespace

int main(int argc, char **argv) {
  std::string text = "/usr/share/common-licenses/GPL-3", out = ".";
  int steps = 400, length = 400;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--text" && i + 1 < argc)
      text = argv[++i];
    else if (arg == "--steps" && i + 1 < argc)
      steps = std::stoi(argv[++i]);
    else if (arg == "--sample" && i + 1 < argc)
      length = std::stoi(argv[++i]);
    else if (arg == "--out" && i + 1 < argc)
      out = argv[++i];
    else {
      std::cerr << "usage: char_rnn [--text FILE] [--steps N] [--sample N] "
                   "[--out DIR]\n";
      return 2;
    }
  }
  try {
    std::filesystem::create_directories(out);
    Corpus corpus = readCorpus(text);
    const int64_t V = static_cast<int64_t>(corpus.vocab.size());
    double entropy = unigramEntropy(corpus);
    std::printf("text: %zu characters, %lld distinct; unigram entropy %.4f "
                "nats/char\n",
                corpus.ids.size(), static_cast<long long>(V), entropy);

    // Next-character cross entropy over a [T, B] window.
    rlx::Func loss("char_loss", [V](rlx::Scope &s) {
      rlx::Tensor ids = s.input("ids", {kSteps, kBatch}, rlx::i32);
      rlx::Tensor next = s.input("next", {kSteps, kBatch}, rlx::i32);
      rlx::Tensor key = s.input("key", {2}, rlx::i32);
      rlx::Tensor zeros = s.full({kBatch, kHidden}, 0);
      rlx::Tensor z = logits(s, ids, zeros, zeros, V, key, /*train=*/true);
      return rlx::cross_entropy(z.reshape({kSteps * kBatch, V}),
                                next.reshape({kSteps * kBatch}));
    });
    rlx::TrainStep step = rlx::make_train_step(
        loss,
        rlx::optim::chain(rlx::optim::clip_by_global_norm(1.0),
                          rlx::Optimizer::adam()),
        rlx::Schedule::cosine(0.01, steps, 1e-3));
    // The whole step (forward, backward, clipping, Adam, the key) as MLIR:
    // `rlxc train_step.mlir` builds a deployable training library.
    step.func().export_mlir(out + "/train_step.mlir");
    step.jit(rlx::Device::cpu()).init_randn(/*seed=*/1, /*stddev=*/0.08);
    step.seed(42);

    Rng offsets{11};
    std::vector<double> curve;
    const size_t span = corpus.ids.size() - kSteps - 1;
    for (int i = 1; i <= steps; ++i) {
      std::vector<int32_t> ids(kSteps * kBatch), next(kSteps * kBatch);
      for (int64_t b = 0; b < kBatch; ++b) {
        size_t start = offsets.next() % span;
        for (int64_t t = 0; t < kSteps; ++t) {
          ids[t * kBatch + b] = corpus.ids[start + t];
          next[t * kBatch + b] = corpus.ids[start + t + 1];
        }
      }
      double l = step.step({{"ids", rlx::Array::from(ids, {kSteps, kBatch})},
                            {"next", rlx::Array::from(next, {kSteps, kBatch})}});
      curve.push_back(l);
      if (i % 10 == 0 || i == steps)
        progress(i, steps, l);
    }
    // The last steps' mean is the figure to compare (one batch is noisy).
    size_t tail = std::min<size_t>(20, curve.size());
    double final = 0;
    for (size_t i = curve.size() - tail; i < curve.size(); ++i)
      final += curve[i] / tail;
    std::printf("final loss %.4f nats/char (mean of the last %zu steps), "
                "unigram entropy %.4f\n",
                final, tail, entropy);
    writeSvg(out + "/loss.svg", curve, entropy);
    step.save_params(out + "/char_rnn.safetensors");

    // Generation: one compiled loop of `length` steps, each sampling the
    // next character from the logits and feeding it back.
    rlx::Func sample("sample", [V, length](rlx::Scope &s) {
      rlx::Tensor key = s.input("key", {2}, rlx::i32);
      rlx::Tensor first = s.input("first", {1, 1}, rlx::i32);
      rlx::Tensor zeros = s.full({1, kHidden}, 0);
      rlx::ScanOptions options;
      options.length = length;
      rlx::ScanResult r = rlx::scan(
          [&](rlx::Scope &in, const std::vector<rlx::Tensor> &c,
              const std::vector<rlx::Tensor> &) {
            std::vector<rlx::Tensor> keys = rlx::random::split_keys(c[3], 2);
            rlx::Tensor table = in.param("embed.weight", {V, kEmbed});
            rlx::Tensor x = rlx::gather(table, c[2], 0); // [1, 1, E]
            rlx::LSTMResult cell = rlx::lstm(in, "lstm", x, c[0], c[1]);
            rlx::Tensor z = rlx::linear(in, "head", cell.ys, V); // [1, 1, V]
            rlx::Tensor id = rlx::random::categorical(keys[1], z, -1);
            return rlx::ScanStep{{cell.h, cell.c, id, keys[0]},
                                 {id.reshape({1})}};
          },
          {zeros, zeros, first, key}, {}, options);
      return r.ys[0].reshape({length}).named("ids");
    });
    sample.export_mlir(out + "/sample.mlir");
    rlx::Compiled generator = sample.jit(rlx::Device::cpu());
    generator.load_params(out + "/char_rnn.safetensors");
    int32_t firstId = corpus.ids[0];
    rlx::Array key = rlx::Array::from(std::vector<int32_t>{0, 7}, {2});
    rlx::Array first = rlx::Array::from(std::vector<int32_t>{firstId}, {1, 1});
    key.host().write_npy(out + "/key.npy");
    first.host().write_npy(out + "/first.npy");
    rlx::Array ids = generator.run({{"key", key}, {"first", first}})["ids"];
    ids.host().write_npy(out + "/sampled_ids.npy");
    std::string generated(1, static_cast<char>(corpus.vocab[firstId]));
    for (double id : ids.to_vector())
      generated += static_cast<char>(corpus.vocab[static_cast<size_t>(id)]);
    std::ofstream(out + "/vocab.txt", std::ios::binary)
        .write(reinterpret_cast<const char *>(corpus.vocab.data()),
               static_cast<std::streamsize>(corpus.vocab.size()));
    std::printf("--- sampled text ---\n%s\n--------------------\n",
                generated.c_str());
    std::printf("wrote %s/loss.svg, char_rnn.safetensors, sample.mlir, "
                "key.npy, first.npy, sampled_ids.npy, vocab.txt\n",
                out.c_str());
    if (!(final < entropy)) {
      std::fprintf(stderr, "char_rnn: final loss %.4f is not below the "
                           "unigram entropy %.4f\n", final, entropy);
      return 1;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "char_rnn: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

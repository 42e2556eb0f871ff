//===- Passes.td - rlx transforms --------------------------*- tablegen -*-===//
//
// Passes over the rlx dialect: markers expanded (autodiff, vmap), gradient entries.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD
#define RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXAutodiff : Pass<"rlx-autodiff", "mlir::ModuleOp"> {
  let summary = "Expands every transform marker, then lowers custom rules";
  let description = [{
    The driver of the marker passes: rounds of rlx-expand-jacobians,
    rlx-reverse-mode, rlx-forward-mode and rlx-expand-vmap until no marker
    (TransformMarkerOpInterface) is left. Each expands only the markers of
    its kind whose callee reaches no marker, so markers compose in any
    nesting, and markers that rules emit (remat's VJP is a vjp marker, a
    batched custom_vjp maps its fwd and bwd) are expanded in a later round.
    Then the scratch functions nothing names are erased and
    rlx-lower-custom-rules turns custom_vjp, custom_jvp and remat into
    calls. A marker whose callee reaches a recursive function (through
    calls, markers or custom rules) is an error naming the cycle.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::func::FuncDialect",
                           "mlir::tensor::TensorDialect"];
}

def RLXExpandJacobians : Pass<"rlx-expand-jacobians", "mlir::ModuleOp"> {
  let summary = "Rewrites jacfwd, jacrev, hessian and hvp as other markers";
  let description = [{
    Over scratch functions (private, tagged `rlx.autodiff_scratch`):
    jacfwd becomes a vmap of a jvp over a basis of the input, jacrev a vmap
    of a vjp over a basis of the output, hessian the jacfwd of a function
    holding the jacrev, hvp a jvp of a function holding a grad. A local
    rewrite: callees are not looked into.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::func::FuncDialect"];
}

def RLXReverseMode : Pass<"rlx-reverse-mode", "mlir::ModuleOp"> {
  let summary = "Expands grad, value_and_grad and vjp markers whose callee "
                "holds no marker";
  let description = [{
    The callee, with its calls inlined, is cloned at the marker as the
    forward sweep; an adjoint sweep in reverse order asks each op for its
    VJP (DifferentiableOpInterface), summing adjoints at fan-out. The pass
    never switches on an op's kind; an op without a rule is an error at its
    location. Markers whose callee reaches a marker (directly, through
    calls or custom rules) are left for a later run (rlx-autodiff repeats).
    Rules look up and add functions through the pass's one
    SymbolTableCollection.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::tensor::TensorDialect"];
}

def RLXForwardMode : Pass<"rlx-forward-mode", "mlir::ModuleOp"> {
  let summary = "Expands jvp markers whose callee holds no marker";
  let description = [{
    The callee, with its calls inlined, is cloned at the marker; each clone
    with a tangent on an operand is asked for its JVP
    (DifferentiableOpInterface) as it is made. Markers whose callee reaches
    a marker are left for a later run.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::tensor::TensorDialect"];
}

def RLXExpandVmap : Pass<"rlx-expand-vmap", "mlir::ModuleOp"> {
  let summary = "Expands vmap markers whose callee holds no marker";
  let description = [{
    The callee, with its calls inlined, is rebuilt at the marker op by op
    with batching rules (BatchableOpInterface): batched values carry the
    batch in front, results are moved to their out_axes. Markers whose
    callee reaches a marker are left for a later run.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::tensor::TensorDialect"];
}

def RLXLowerCustomRules : Pass<"rlx-lower-custom-rules", "mlir::ModuleOp"> {
  let summary = "Turns custom_vjp, custom_jvp and remat into calls";
  let description = [{
    Once no marker is left, a custom rule only computes its callee: each
    becomes a `func.call` of it. A module still holding a marker is an
    error (its rules would be lost).
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def RLXSinkTransposes : Pass<"rlx-sink-transposes", "mlir::ModuleOp"> {
  let summary = "Moves transposes below elementwise ops so inverse pairs fold";
  let description = [{
    `f(transpose(x, P))` becomes `transpose(f(x), P)` for unary elementwise
    ops, and `f(transpose(x, P), b)` becomes `transpose(f(x, b'), P)` for
    binary ones when `b` is a transpose by the same P (`b'` its input) or
    broadcasts (fewer elements than the result; `b'` is `b` reshaped to the
    rank and permuted by P's inverse). `reduce(transpose(x, P), axes)` (sum,
    mean, max) becomes `reduce(x, P[axes])` followed by what is left of P,
    if anything. A transpose read by anything else stays. Transposes of transposes fold, so an NCHW model's
    NCHW->NHWC->conv->NCHW->bias->relu->NHWC chains lose both copies.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

def RLXAccumulateInF32 : Pass<"rlx-accumulate-in-f32", "mlir::ModuleOp"> {
  let summary = "Runs 16-bit matmuls, convs, sums and softmaxes in f32";
  let description = [{
    matmul, conv2d, avg_pool2d, sum, mean, softmax and log_softmax over bf16
    or f16 operands become the same op in f32 between casts: operands widen
    exactly, terms accumulate in f32, the result rounds once to the 16-bit
    type (XLA's choice; a bf16 accumulator keeps 8 bits).
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

def RLXPackDotOperands : Pass<"rlx-pack-dot-operands", "mlir::ModuleOp"> {
  let summary = "Weights of matmuls and convs prepacked for the CPU's "
                "matmul kernels";
  let description = [{
    The `[K, N]` weight of an i8 x i8 -> i32 matmul, the filter of an i8
    conv2d with one group (`int8`), the bf16 `[K, N]` weight widened into
    an f32 matmul of two widened bf16 values (`bf16`), and the f32 `[K, N]`
    weight of an f32 matmul or filter of an f32 conv2d with one group (256
    KiB or more, or smaller with more rows in one of the L1 sets that a
    column panel read in place falls in than the set has ways) that the
    f32 kernel reads in column panels (`f32`; panels of
    `f32-panel-columns`, its register tile's width, N a multiple of it and
    more than one panel) are read through
    `rlx.unpack_dot_operand(rlx.pack_dot_operand(w))`: rlx-prepare-params
    moves the pack into the prepare entry, and the lowered matmul reads the
    packed param directly, so the kernel no longer copies the weight into
    its layout at every call. Weights are values computed from params and
    constants alone, of static shape; one pack per weight, where the weight
    is computed, also for a reader in a loop body nested there (a scan's
    step reading a weight computed before the loop). With `f32`, the
    block-scaled weight of an f32 matmul (`rlx.block_dequantize` of narrow
    float or 2-8 bit integer codes `[K, N]` along K, f8E8M0FNU/f16/f32
    scales, N a multiple of the panel width, 2 MiB or more as f32) has its codes and
    scales packed instead (in groups of 1, i8 codes too), and the matmul reads a new
    dequantization of the two unpacks: the f32 kernel decodes them panel by
    panel, so the weight stays narrow in memory.
  }];
  let options = [
    Option<"int8", "int8", "bool", "false",
           "Pack i8 weights (a CPU with AVX512-VNNI and AVX512-BW)">,
    Option<"bf16", "bf16", "bool", "false",
           "Pack bf16 weights (a CPU with AVX512-BF16)">,
    Option<"f32", "f32", "bool", "false",
           "Pack large f32 weights and block-scaled ones (the f32 "
           "kernel's panels)">,
    Option<"f32PanelColumns", "f32-panel-columns", "int64_t", "32",
           "Columns of the f32 kernel's panels: its register tile's width, "
           "32 (AVX-512) or 16 (AVX2)">,
  ];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

def RLXQuantizeInt8 : Pass<"rlx-quantize-int8", "mlir::ModuleOp"> {
  let summary = "Post-training int8 quantization of activation-by-weight "
                "matmuls and convs";
  let description = [{
    Each f32 matmul of an activation by a `[K, N]` weight, and each f32
    conv2d of an activation by a filter weight (computed from params and
    constants alone; a contraction of at most 133144 terms, so that the
    i32 sum cannot overflow), becomes its i8 x i8 -> i32 twin between
    scalings. The weight is quantized per output channel (a matmul's
    column, a filter's last dim), symmetric: `s_w[n] = max |W[.., n]| /
    127`. The activation is quantized per tensor, symmetric: `s_x = a /
    127` with `a` the f64 attribute `rlx.activation_absmax` that
    calibration leaves on the op, or, when it has none, the largest |x| of
    the call itself (dynamic quantization). Values are rounded to nearest
    (ties to even) and clamped to [-127, 127]; the i32 result times `s_x *
    s_w` is the result. The weight's quantization depends on params alone,
    so rlx-prepare-params computes it once per binding.
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

def RLXScanResiduals : Pass<"rlx-scan-residuals", "mlir::ModuleOp"> {
  let summary = "Stores per-step residuals for scan's reverse mode";
  let description = [{
    Scan's VJP rule runs the body's VJP in a backward scan over the carry
    each step started from, which recomputes the step's forward values. In
    each backward scan tagged `rlx.primal_xs`, the ops that read only those
    primal slices and consts (not the adjoint carry, not through an
    rlx.optimization_barrier, which pins what remat recomputes) move into
    the forward scan that produced the slices, and the values the backward
    body reads from them are stacked per step and read back as xs. Then
    every scan drops the stacked outputs nobody reads and the xs its body
    never reads. Runs after rlx-autodiff and a cleanup (so scan's
    canonicalization has merged the primal loop into the stacking one).
  }];
  let dependentDialects = ["mlir::rlx::RLXDialect", "mlir::func::FuncDialect"];
}

def RLXAddGradientEntries : Pass<"rlx-add-gradient-entries", "mlir::ModuleOp"> {
  let summary = "Adds FN_grad / FN_value_and_grad entry points w.r.t. all params";
  let description = [{
    For each function named in `grad` (`value-and-grad`), adds a public
    function `FN_grad` (`FN_value_and_grad`) with FN's inputs, returning
    `value` (for value_and_grad) and `grad.<param name>` for every param FN
    reads, through an `rlx.grad` (`rlx.value_and_grad`) marker.

    For each function in `per-example-grad`, adds `FN_per_example_grad`:
    every input of FN gets a leading batch axis of dynamic size, params stay
    shared, and the results `grad.<param>` hold one gradient per example
    (batch axis in front): a vmap of the gradient.

    For each function in `check-grads`, adds `FN_jvp(inputs...,
    tangent.<leaf>...)` returning FN's outputs then `tangent.<output>`, and
    `FN_vjp(inputs..., cotangent.<output>...)` returning FN's outputs then
    `grad.<leaf>`, where the leaves are every float input (by name) and
    every param: what a directional finite-difference check needs.
  }];
  let options = [
    ListOption<"gradFunctions", "grad", "std::string",
               "functions to add FN_grad for">,
    ListOption<"valueAndGradFunctions", "value-and-grad", "std::string",
               "functions to add FN_value_and_grad for">,
    ListOption<"perExampleGradFunctions", "per-example-grad", "std::string",
               "functions to add FN_per_example_grad for">,
    ListOption<"checkGradFunctions", "check-grads", "std::string",
               "functions to add FN_jvp and FN_vjp for (w.r.t. every float "
               "input and every param), as gradient checks use">
  ];
  let dependentDialects = ["mlir::rlx::RLXDialect"];
}

#endif // RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD

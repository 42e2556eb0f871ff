//===- Passes.td - rlx transforms --------------------------*- tablegen -*-===//
//
// Passes over the rlx dialect: markers expanded (autodiff, vmap), gradient entries.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD
#define RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXAutodiff : Pass<"rlx-autodiff", "mlir::ModuleOp"> {
  let summary = "Expands grad, value_and_grad, vjp, jvp and hvp markers";
  let description = [{
    Each marker is replaced by plain rlx ops computing what it asks for, at
    its position: the callee (with its calls inlined and its own markers
    expanded first, so markers compose) is cloned as a forward sweep, then
    an adjoint sweep in reverse order asks each op for its VJP
    (DifferentiableOpInterface), or a tangent sweep alongside the forward
    one asks for JVPs. hvp is the JVP of the gradient. The pass never
    switches on an op's kind; an op without rules is an error at its
    location. Rules look up and add functions through the pass's one
    SymbolTableCollection. A marker whose callee reaches a recursive
    function (through calls, markers or custom rules) is an error naming
    the cycle.
  }];
  let dependentDialects = ["rlx::RLXDialect", "mlir::tensor::TensorDialect"];
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
  let dependentDialects = ["rlx::RLXDialect"];
}

#endif // RLX_DIALECTS_RLX_TRANSFORMS_PASSES_TD

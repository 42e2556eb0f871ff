//===- RLXMarkers.td - rlx transform marker ops -------------*- tablegen -*-===//
//
// Markers name a function by symbol and what to differentiate
// (TransformMarkerOpInterface). The rlx-autodiff passes expand them,
// innermost first, into plain rlx ops.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXMARKERS_TD
#define RLX_DIALECT_RLXMARKERS_TD

/// What a differentiating marker differentiates: inputs by position (`wrt`)
/// and params by name (`wrt_params`, a list of names or the word "all").
/// Leaves are ordered inputs first, then params (for "all", in order of
/// first use in the callee).
class RLX_MarkerOp<string mnemonic, list<Trait> traits = []>
    : RLX_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
         DeclareOpInterfaceMethods<RLX_TransformMarkerOpInterface,
                                   ["getLeaves"]>])>;

def RLX_GradOp : RLX_MarkerOp<"grad"> {
  let summary = "gradient of a function with a one-element result";
  let description = [{
    The gradient of `@callee(args)` with respect to its leaves, one result
    per leaf with the leaf's type. The callee's single result must have
    exactly one element (use `rlx.vjp` otherwise); leaves must be floats.
    Leaves that do not contribute get zeros.

    Example:

    ```mlir
    %gx, %gw = rlx.grad @loss(%x) {wrt = array<i64: 0>, wrt_params = ["fc.w"]}
        : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<4x3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$wrt,
                       OptionalAttr<AnyAttr>:$wrt_params);
  let results = (outs Variadic<AnyRankedTensor>:$gradients);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_ValueAndGradOp : RLX_MarkerOp<"value_and_grad"> {
  let summary = "value and gradient in one forward and one backward sweep";
  let description = [{
    Like `rlx.grad`, with the callee's results first. With `has_aux`, the
    callee's first result is differentiated and the others are auxiliary
    outputs returned as they are, contributing nothing.

    Example:

    ```mlir
    %l, %gw = rlx.value_and_grad @loss(%x) {wrt_params = "all"}
        : (tensor<?x4xf32>) -> (tensor<f32>, tensor<4x3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$wrt,
                       OptionalAttr<AnyAttr>:$wrt_params,
                       UnitAttr:$has_aux);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_VJPOp : RLX_MarkerOp<"vjp", [AttrSizedOperandSegments]> {
  let summary = "vector-Jacobian product against explicit cotangents";
  let description = [{
    Results: the callee's results, then one adjoint per leaf. One cotangent
    per callee result, of that result's type.

    Example:

    ```mlir
    %y, %gx = rlx.vjp @f(%x) cotangents(%ct) {wrt = array<i64: 0>}
        : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       Variadic<AnyRankedTensor>:$cotangents,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$wrt,
                       OptionalAttr<AnyAttr>:$wrt_params);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `cotangents` `(` $cotangents `)` attr-dict `:`
    functional-type(operands, results)
  }];
}

def RLX_JVPOp : RLX_MarkerOp<"jvp", [AttrSizedOperandSegments]> {
  let summary = "Jacobian-vector product against tangents, in one forward sweep";
  let description = [{
    One tangent per leaf, of the leaf's type. Results: the callee's results,
    then one tangent per callee result.

    Example:

    ```mlir
    %y, %ty = rlx.jvp @f(%x) tangents(%tx) {wrt = array<i64: 0>}
        : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       Variadic<AnyRankedTensor>:$tangents,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$wrt,
                       OptionalAttr<AnyAttr>:$wrt_params);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `tangents` `(` $tangents `)` attr-dict `:`
    functional-type(operands, results)
  }];
}

def RLX_HVPOp : RLX_MarkerOp<"hvp", [AttrSizedOperandSegments]> {
  let summary = "Hessian-vector product, forward over reverse";
  let description = [{
    The JVP of the gradient of `@callee` along `tangents` (one per leaf):
    one result per leaf, without building the Hessian.

    Example:

    ```mlir
    %hv = rlx.hvp @f(%x) tangents(%v) {wrt = array<i64: 0>}
        : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       Variadic<AnyRankedTensor>:$tangents,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$wrt,
                       OptionalAttr<AnyAttr>:$wrt_params);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `tangents` `(` $tangents `)` attr-dict `:`
    functional-type(operands, results)
  }];
}

def RLX_VmapOp : RLX_MarkerOp<"vmap"> {
  let summary = "maps a function written for one example over a batch";
  let description = [{
    `in_axes` has one entry per argument: the axis of the batch in that
    argument (negative counts from the end) or `unit` for an argument passed
    whole to every example. `out_axes` has one axis per result (where the
    batch goes). Mapped sizes must agree. Expanded by rlx-autodiff with each
    op's batching rule into one batched program (a batched matmul, not a
    loop).

    Example:

    ```mlir
    %ys = rlx.vmap @f(%xs, %w) {in_axes = [0, unit], out_axes = [0]}
        : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args,
                       ArrayAttr:$in_axes, DenseI64ArrayAttr:$out_axes);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

class RLX_JacobianOp<string mnemonic> : RLX_MarkerOp<mnemonic> {
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyRankedTensor>:$args, I64Attr:$wrt);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_JacfwdOp : RLX_JacobianOp<"jacfwd"> {
  let summary = "Jacobian by forward mode: a vmap of jvp over a basis";
  let description = [{
    The Jacobian of the single result of `@callee` with respect to input
    `wrt`, of shape `shape(result) ++ shape(input)` (static shapes).

    Example:

    ```mlir
    %j = rlx.jacfwd @f(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
    ```
  }];
}

def RLX_JacrevOp : RLX_JacobianOp<"jacrev"> {
  let summary = "Jacobian by reverse mode: a vmap of vjp over a basis";
  let description = [{
    Same result as `rlx.jacfwd`, built from one VJP per output element.

    Example:

    ```mlir
    %j = rlx.jacrev @f(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<2x3xf64>
    ```
  }];
}

def RLX_HessianOp : RLX_JacobianOp<"hessian"> {
  let summary = "Hessian: jacfwd of jacrev";
  let description = [{
    For a one-element result, the matrix of second derivatives with respect
    to input `wrt`, of shape `shape(input) ++ shape(input)`.

    Example:

    ```mlir
    %h = rlx.hessian @f(%x) {wrt = 0 : i64} : (tensor<3xf64>) -> tensor<3x3xf64>
    ```
  }];
}

def RLX_StopGradientOp : RLX_DiffOp<"stop_gradient",
    [Pure, SameOperandsAndResultType]> {
  let summary = "identity whose derivative is zero";
  let description = [{
    Example:

    ```mlir
    %c = rlx.stop_gradient %x : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

class RLX_CustomRuleOp<string mnemonic> : RLX_DiffOp<mnemonic,
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let extraClassDeclaration = [{
    ::mlir::func::FuncOp lookup(::mlir::SymbolTableCollection &symbols,
                                ::mlir::FlatSymbolRefAttr name) {
      return symbols.lookupNearestSymbolFrom<::mlir::func::FuncOp>(*this, name);
    }
  }];
}

def RLX_CustomVJPOp : RLX_CustomRuleOp<"custom_vjp"> {
  let summary = "calls a function whose reverse-mode derivative is user-given";
  let description = [{
    Computes `@callee(args)`. Under reverse mode its internals are not
    differentiated: `@fwd(args)` returns the callee's results followed by
    residuals, and `@bwd(residuals..., cotangents...)` returns one adjoint
    per argument. Differentiating it in forward mode is an error (give a
    custom_jvp instead).

    Example:

    ```mlir
    %y = rlx.custom_vjp @clip(%x) {fwd = @clip_fwd, bwd = @clip_bwd}
        : (tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyRankedTensor>:$args,
                       FlatSymbolRefAttr:$fwd, FlatSymbolRefAttr:$bwd);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_CustomJVPOp : RLX_CustomRuleOp<"custom_jvp"> {
  let summary = "calls a function whose forward-mode derivative is user-given";
  let description = [{
    Computes `@callee(args)`. Under forward mode `@jvp(args..., tangents...)`
    returns the results followed by their tangents. Differentiating it in
    reverse mode is an error (give a custom_vjp instead).

    Example:

    ```mlir
    %y = rlx.custom_jvp @softplus(%x) {jvp = @softplus_jvp}
        : (tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyRankedTensor>:$args,
                       FlatSymbolRefAttr:$jvp);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_RematOp : RLX_CustomRuleOp<"remat"> {
  let summary = "calls a function whose intermediates are recomputed, not kept";
  let description = [{
    Computes `@callee(args)`. Under reverse mode the backward sweep
    recomputes the callee's forward from its arguments instead of keeping
    its intermediates alive from the forward sweep: less memory, more
    compute, the same gradients (JAX's `checkpoint`).

    Example:

    ```mlir
    %h = rlx.remat @block(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyRankedTensor>:$args);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat =
      "$callee `(` $args `)` attr-dict `:` functional-type($args, results)";
}

def RLX_OptimizationBarrierOp : RLX_DiffOp<"optimization_barrier",
    [SameOperandsAndResultType, MemoryEffects<[MemWrite]>]> {
  let summary = "identity that folding and CSE do not see through";
  let description = [{
    Keeps a recomputation (remat) from being merged with the computation it
    repeats. Lowered to its operand.

    Example:

    ```mlir
    %y = rlx.optimization_barrier %x : tensor<?x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

#endif // RLX_DIALECT_RLXMARKERS_TD

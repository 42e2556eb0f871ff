//===- RLXControlFlow.td - rlx loops and branches ------------*- tablegen -*-===//
//
// scan, while and switch name their bodies by symbol, as markers and custom
// rules name their functions: every transform (reverse and forward mode,
// vmap) builds new body functions with markers inside, which the autodiff
// rounds expand like any other. rlx-lower-control-flow turns them into scf
// loops and branches with the bodies inlined.
//
// Operands come in segments: `consts` (loop invariants: captured tensors,
// params made explicit), the `init` carry, and for scan the stacked `xs`.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXCONTROLFLOW_TD
#define RLX_DIALECT_RLXCONTROLFLOW_TD

def RLX_ScanOp : RLX_DiffOp<"scan", [
    AttrSizedOperandSegments, NoMemoryEffect,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a loop over the leading dim of stacked inputs with a carry";
  let description = [{
    JAX's `lax.scan`: for i in 0..length (or backwards with `reverse`),
    `@body(consts..., carry..., xs[i]...)` returns the next carry followed
    by the step's outputs; the results are the final carry followed by the
    step outputs stacked along a new leading dim of size `length`. `length`
    is the leading dim of every `xs` (which must agree) or, without `xs`, the
    `length` attribute. `unroll` is how many steps one iteration of the
    generated loop runs, inlined one after the other (the steps left over
    run one by one). The body's carry types must equal the init's.

    Reverse mode stores each step's residuals (the forward values the
    step's VJP reads) in the forward loop and reads them back in the
    backward loop (rlx-scan-residuals); a remat inside the body stores only
    its inputs and recomputes the rest. With `checkpoint_every = k` (a
    static length) it keeps only every k-th carry: the loop runs in chunks
    of k steps, each recomputed from its first carry in the backward pass,
    so memory is O(length / k) carries plus one chunk's residuals, for one
    more forward pass.

    Example:

    ```mlir
    %h, %ys = rlx.scan @step consts(%w) init(%h0) xs(%xs)
        : (tensor<4x4xf32>, tensor<4xf32>, tensor<10x4xf32>)
        -> (tensor<4xf32>, tensor<10x4xf32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$body,
                       Variadic<AnyRankedTensor>:$consts,
                       Variadic<AnyRankedTensor>:$init,
                       Variadic<AnyRankedTensor>:$xs,
                       OptionalAttr<I64Attr>:$length,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse,
                       DefaultValuedAttr<I64Attr, "1">:$unroll,
                       OptionalAttr<I64Attr>:$checkpoint_every);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $body (`consts` `(` $consts^ `)`)? `init` `(` $init `)`
    (`xs` `(` $xs^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The final carry (one per init).
    ::mlir::ResultRange getCarries() {
      return getResults().take_front(getInit().size());
    }
    /// The stacked step outputs.
    ::mlir::ResultRange getYs() {
      return getResults().drop_front(getInit().size());
    }
    /// The number of steps: static, or ShapedType::kDynamic.
    int64_t getStaticLength();
  }];
}

def RLX_WhileOp : RLX_DiffOp<"while", [
    AttrSizedOperandSegments, NoMemoryEffect,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a loop that runs its body while its condition holds";
  let description = [{
    JAX's `lax.while_loop`: while `@cond(consts..., carry...)` (a
    `tensor<i1>`) is true, `carry = @body(consts..., carry...)`; the results
    are the last carry. Forward mode and vmap go through it; reverse mode
    does not (the number of steps is unknown until run): write the loop as
    an `rlx.scan`, or with a static trip count.

    Example:

    ```mlir
    %n, %x = rlx.while @not_done, @halve init(%n0, %x0)
        : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$cond, FlatSymbolRefAttr:$body,
                       Variadic<AnyRankedTensor>:$consts,
                       Variadic<AnyRankedTensor>:$init);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $cond `,` $body (`consts` `(` $consts^ `)`)? `init` `(` $init `)`
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def RLX_SwitchOp : RLX_DiffOp<"switch", [
    NoMemoryEffect, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "calls the one of its branches an index picks";
  let description = [{
    JAX's `lax.switch` (and `lax.cond`): `@branches[index](args...)`. The
    index is a `tensor<i32>`, clamped into range as JAX does, or a
    `tensor<i1>` picking the first branch for false and the second for true.
    Every branch takes the args and returns the result types.

    Example:

    ```mlir
    %y = rlx.switch %pred [@on_false, @on_true](%x)
        : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TensorOf<[I1]>, TensorOf<[I32]>]>:$index,
                       FlatSymbolRefArrayAttr:$branches,
                       Variadic<AnyRankedTensor>:$args);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $index $branches `(` $args `)` attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLXCONTROLFLOW_TD

//===- RLXCollectiveOps.td - rlx collective ops ---------------*- tablegen -*-===//
//
// Collectives over a named axis of replicas: the same program runs on every
// replica (one process or device each, a communicator joins them), and
// these ops exchange values between the replicas, as JAX's psum, pmean,
// all_gather, psum_scatter and axis_index do inside pmap/shard_map. Every
// replica must issue the same collectives in the same order.
//
// The axis is named so that a function can say which replicas it means;
// the runtime binds the name to a communicator (today one axis, the
// session's communicator). all_reduce, broadcast and axis_index work on any
// number of replicas, so one artifact runs on 1 or N; all_gather and
// reduce_scatter change a dim by the axis size, which they carry
// (`axis_size`, checked against the communicator at run time) so that their
// types stay static.
//
// The ops read and write no memory the program sees, but they are
// communication: every replica must meet every collective in the same
// order. They declare read and write effects so that no pass reorders,
// hoists, merges or drops them (LICM out of a branch that only some
// replicas take, rlx-prepare-params into a function that runs at bind
// time, DCE of one whose result is unused while the others wait for it).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXCOLLECTIVEOPS_TD
#define RLX_DIALECT_RLXCOLLECTIVEOPS_TD

/// What keeps collectives in program order (see above).
def RLX_Communicates : MemoryEffects<[MemRead, MemWrite]>;

def RLX_AllReduceOp
    : RLX_DiffOp<"all_reduce", [RLX_Communicates, SameOperandsAndResultType]> {
  let summary = "elementwise reduction over the replicas of an axis "
                "(JAX's psum, pmean, pmax, pmin)";
  let description = [{
    Every replica gets, elementwise, the `kind` (`sum`, `mean`, `max` or
    `min`) of `x` over all replicas of `axis`. The order in which the
    runtime combines replicas is fixed (it does not depend on timing), so
    every replica holds bit-identical results.

    Example:

    ```mlir
    %g = rlx.all_reduce %x {axis = "batch", kind = "mean"} : tensor<512x10xf32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$x, StrAttr:$axis, StrAttr:$kind);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def RLX_AllGatherOp : RLX_DiffOp<"all_gather", [RLX_Communicates]> {
  let summary = "concatenation over the replicas of an axis "
                "(JAX's all_gather with tiled=True)";
  let description = [{
    Every replica gets the `x` of all `axis_size` replicas of `axis`,
    concatenated along `dim` in replica order: the result's `dim` is
    `axis_size` times the operand's, other dims equal.

    Example:

    ```mlir
    %all = rlx.all_gather %x {axis = "i", dim = 0 : i64, axis_size = 4 : i64}
        : (tensor<8x3xf32>) -> tensor<32x3xf32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$x, StrAttr:$axis, I64Attr:$dim,
                       I64Attr:$axis_size);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_ReduceScatterOp : RLX_DiffOp<"reduce_scatter", [RLX_Communicates]> {
  let summary = "sum over the replicas of an axis, each replica keeping one "
                "block (JAX's psum_scatter with tiled=True)";
  let description = [{
    The elementwise sum of `x` over the `axis_size` replicas of `axis`,
    split along `dim` into `axis_size` equal blocks; replica `r` gets block
    `r`. The operand's `dim` must divide by `axis_size`. The adjoint of
    `all_gather` and the other way round.

    Example:

    ```mlir
    %mine = rlx.reduce_scatter %g {axis = "i", dim = 0 : i64, axis_size = 4 : i64}
        : (tensor<32x3xf32>) -> tensor<8x3xf32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$x, StrAttr:$axis, I64Attr:$dim,
                       I64Attr:$axis_size);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_BroadcastOp
    : RLX_DiffOp<"broadcast", [RLX_Communicates, SameOperandsAndResultType]> {
  let summary = "the value of one replica on every replica of an axis";
  let description = [{
    Every replica of `axis` gets the `x` of replica `root` (what data
    parallel training does with the initial parameters). Not to be confused
    with `broadcast_in_dim`, which broadcasts dims of one tensor.

    Example:

    ```mlir
    %w = rlx.broadcast %w0 {axis = "batch", root = 0 : i64} : tensor<784x512xf32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$x, StrAttr:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$root);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def RLX_AxisIndexOp : RLX_DiffOp<"axis_index", [RLX_Communicates]> {
  let summary = "this replica's index along an axis (JAX's axis_index)";
  let description = [{
    The replica's index in `[0, size)` along `axis`, as a scalar i32 (0
    when the program runs on one replica).

    Example:

    ```mlir
    %r = rlx.axis_index {axis = "batch"} : tensor<i32>
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs 0DTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLXCOLLECTIVEOPS_TD

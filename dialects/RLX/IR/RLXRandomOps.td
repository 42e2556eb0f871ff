//===- RLXRandomOps.td - rlx random number ops ----------------*- tablegen -*-===//
//
// Keyed, counter-based random numbers: JAX's default generator
// (threefry2x32, in its partitionable mode), bit for bit. A key is a
// `tensor<...x2xi32>` whose two words are read as unsigned; leading dims of
// a key are batch dims (one key per lane, which is what vmap makes of a
// batched key). Samplers take the sample shape, static by definition, from
// the result type after the key's batch dims. Keys and samples carry no
// derivative.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXRANDOMOPS_TD
#define RLX_DIALECT_RLXRANDOMOPS_TD

/// A sampler: key in, `[batch..., sample...]` out, the result type given by
/// the user (it holds the sample shape).
class RLX_RandomSampleOp<string mnemonic, Type resultType>
    : RLX_DiffOp<mnemonic, [Pure]> {
  let results = (outs resultType:$result);
  let assemblyFormat = "$key attr-dict `:` type($key) `->` type($result)";
  let hasVerifier = 1;
}

def RLX_RandomBitsOp : RLX_RandomSampleOp<"random_bits", AnyRankedTensor> {
  let summary = "32 random bits per element (JAX's random.bits)";
  let description = [{
    For each key (the leading dims of `key` are batch dims), the result's
    trailing dims are a sample of that shape: element `i` (row-major) is
    `a ^ b` where `(a, b) = threefry2x32(key, (i >> 32, i & 0xffffffff))`,
    JAX's `random.bits(key, shape, uint32)` read as i32. The sample dims are
    static.

    Example:

    ```mlir
    %b = rlx.random_bits %key : tensor<2xi32> -> tensor<5x7xi32>
    %c = rlx.random_bits %keys : tensor<?x2xi32> -> tensor<?x3xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key);
}

def RLX_RandomUniformOp
    : RLX_RandomSampleOp<"random_uniform", AnyRankedTensor> {
  let summary = "uniform floats in [minval, maxval) (JAX's random.uniform)";
  let description = [{
    The bits of `random_bits` (64 per element for f64: the two threefry
    words, first word high) with their top mantissa bits under the exponent
    of 1.0, minus 1, scaled to `[minval, maxval)` and clamped below at
    `minval`, in the result's float type (f32 or f64), as JAX does.

    Example:

    ```mlir
    %u = rlx.random_uniform %key {minval = -1.0, maxval = 1.0} : tensor<2xi32> -> tensor<1000xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key,
                       DefaultValuedAttr<F64Attr, "0.0">:$minval,
                       DefaultValuedAttr<F64Attr, "1.0">:$maxval);
}

def RLX_RandomNormalOp : RLX_RandomSampleOp<"random_normal", AnyRankedTensor> {
  let summary = "standard normal floats (JAX's random.normal)";
  let description = [{
    `sqrt(2) * erfinv(u)` with `u` uniform in `(-1, 1)`, using XLA's erfinv
    polynomials (f32: Giles' single-precision one; f64: the three-branch
    double one), as JAX does.

    Example:

    ```mlir
    %n = rlx.random_normal %key : tensor<2xi32> -> tensor<4x3xf64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key);
}

def RLX_RandomTruncatedNormalOp
    : RLX_RandomSampleOp<"random_truncated_normal", AnyRankedTensor> {
  let summary = "standard normal floats in (lower, upper) "
                "(JAX's random.truncated_normal)";
  let description = [{
    JAX's algorithm: `u` uniform in `[erf(lower / sqrt(2)),
    erf(upper / sqrt(2)))` (the bounds rounded to the result's float type
    first, `erf` XLA's), then `sqrt(2) * erfinv(u)` (the erfinv of
    `random_normal`, `+-1` giving `+-inf`), clamped to
    `[nextafter(lower, +inf), nextafter(upper, -inf)]`, so the samples lie
    in the open interval. The bounds may be infinite (a one-sided or no
    truncation); `lower < upper`.

    Example:

    ```mlir
    %t = rlx.random_truncated_normal %key {lower = -2.0, upper = 2.0} : tensor<2xi32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key, F64Attr:$lower, F64Attr:$upper);
}

def RLX_RandomSplitOp : RLX_DiffOp<"random_split", [Pure, InferTypeOpAdaptor]> {
  let summary = "num new keys from a key (JAX's random.split)";
  let description = [{
    Key `n` of the result is `threefry2x32(key, (0, n))` (JAX's partitionable
    split); batch dims of `key` stay in front.

    Example:

    ```mlir
    %ks = rlx.random_split %key {num = 3 : i64} : (tensor<2xi32>) -> tensor<3x2xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key, I64Attr:$num);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$key attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_RandomFoldInOp
    : RLX_DiffOp<"random_fold_in", [Pure, InferTypeOpAdaptor]> {
  let summary = "a new key from a key and an integer (JAX's random.fold_in)";
  let description = [{
    `threefry2x32(key, (0, data))`. The batch dims of `key` and the dims of
    `data` broadcast like NumPy's; the result is one key per element of the
    broadcast.

    Example:

    ```mlir
    %k = rlx.random_fold_in %key, %step : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key, AnyRankedTensor:$data);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$key `,` $data attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLXRANDOMOPS_TD

//===- RLXQuantOps.td - rlx quantization ops ------------------*- tablegen -*-===//
//
// Quantization-aware training: values rounded to a narrow format in the
// forward pass with the format's exact rounding, and a straight-through
// derivative.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXQUANTOPS_TD
#define RLX_DIALECT_RLXQUANTOPS_TD

def RLX_FakeQuantOp
    : RLX_DiffOp<"fake_quant", [Pure, AllTypesMatch<["x", "result"]>]> {
  let summary = "rounds to a narrow float format and back (QAT)";
  let description = [{
    Each element of `x` (f32 or f64) rounded to the nearest value of a
    binary float format with `exponent_bits`, `mantissa_bits` and
    `exponent_bias` (ties to even, subnormals included), kept in x's type:
    the emulated fXmYeZ formats, whose values must be values of x's type
    (bf16's in f32 included). `specials` says which codes are not finite
    numbers, as MLIR's float types do:

    - `ieee`: the top exponent holds inf and NaN (f8E5M2);
    - `fn`: no inf, the all-ones magnitude is NaN (f8E4M3FN);
    - `fnuz`: no inf and no -0, -0's code is NaN (f8E4M3FNUZ);
    - `finite`: every code is a number (f6E3M2FN, f4E2M1FN).

    Beyond the largest finite value: ±inf (`ieee`) or NaN (`fn`, `fnuz`),
    ±max for `finite` or with `saturate`. NaN stays NaN. Its derivative is
    the straight-through estimator: the identity.

    With a `key` (`tensor<batch... x 2 x i32>`, a random key as the random
    ops take it, its leading dims equal to x's leading dims), rounding is
    stochastic instead: |x| lies between two neighbours of the format, lo
    and hi one ulp apart, and rounds to hi when `u < (|x| - lo) / ulp`, with
    `u` JAX's `random.uniform(key, shape)` in x's type over the sample dims
    (x's dims after the key's batch dims; one key per lane). The result is
    unbiased (its expectation is x where no overflow occurs), values of the
    format stay exact, and the same key gives the same result. The key
    carries no derivative; overflow, NaN and the sign are handled as in
    rounding to nearest.

    Example:

    ```mlir
    %q = rlx.fake_quant %w {exponent_bits = 4, mantissa_bits = 3,
                            exponent_bias = 7, specials = "fn"} : tensor<784x512xf32>
    %s = rlx.fake_quant %g key %k {exponent_bits = 8, mantissa_bits = 7,
                                   exponent_bias = 127} : tensor<512xf32>, tensor<2xi32>
    ```
  }];
  let arguments = (ins RLX_FloatTensor:$x, Optional<AnyRankedTensor>:$key,
                       I64Attr:$exponent_bits,
                       I64Attr:$mantissa_bits, I64Attr:$exponent_bias,
                       DefaultValuedStrAttr<StrAttr, "ieee">:$specials,
                       UnitAttr:$saturate);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat =
      "$x (`key` $key^)? attr-dict `:` type($x) (`,` type($key)^)?";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The format the attributes describe, or nullopt for an unknown
    /// `specials`.
    std::optional<FloatFormat> getFormat();

  private:
    /// The stochastic rounding's key against x.
    mlir::LogicalResult verifyKey(mlir::Value key);
  public:
  }];
}

def RLX_BlockDequantizeOp : RLX_DiffOp<"block_dequantize", [Pure]> {
  let summary = "block-scaled values (the MX formats) to a compute float";
  let description = [{
    Each element of `x` times the scale of its block: `x` is cut along
    `axis` into blocks of `block_size` elements (the last one may be
    shorter), and `scales` has x's shape but for `ceil(dim / block_size)`
    along `axis`, one scale per block:

      result[..., i, ...] = x[..., i, ...] * scales[..., i floordiv block_size, ...]

    This is how the OCP Microscaling formats store tensors (MXFP8, MXFP6,
    MXFP4, MXINT8: blocks of 32 along the reduction dim, elements in
    f8E4M3FN, f8E5M2, f6E3M2FN, f6E2M3FN, f4E2M1FN or i8, one f8E8M0FNU
    power of two per block) and what ONNX's blocked DequantizeLinear
    computes (without zero points). `x` may be any float type (narrow ones
    decoded exactly) or a signless integer of 2 to 32 bits; `scales`
    f8E8M0FNU (2^(code - 127), code 255 is NaN), f16, bf16, f32 or f64. The
    product is computed in f32 (f64 when any operand or the result is f64)
    and rounded once to the result type.

    Derivatives flow to a compute-float `x` (the cotangent's blocks scaled
    the same way); the scales are constants to autodiff, as JAX's scaled
    matmuls treat them, and narrow or integer codes carry none.

    Example:

    ```mlir
    %w = rlx.block_dequantize %codes, %scales {axis = 0, block_size = 32}
        : tensor<784x512xf4E2M1FN>, tensor<25x512xf8E8M0FNU> -> tensor<784x512xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$scales,
                       I64Attr:$axis, I64Attr:$block_size);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat =
      "$x `,` $scales attr-dict `:` type($x) `,` type($scales) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `v` (x's shape) scaled block by block with this op's scales, as
    /// `resultType`, or, without one, as x's type where x is a compute
    /// float (a null value otherwise): the rules' cotangent and tangent.
    mlir::Value scaledLikeX(mlir::OpBuilder &builder, mlir::Value v,
                            mlir::RankedTensorType resultType = {});
  }];
}

#endif // RLX_DIALECT_RLXQUANTOPS_TD

//===- RLXQuantOps.td - rlx quantization ops ------------------*- tablegen -*-===//
//
// Quantization-aware training: values rounded to a narrow format in the
// forward pass with the format's exact rounding, and a straight-through
// derivative.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXQUANTOPS_TD
#define RLX_DIALECT_RLXQUANTOPS_TD

def RLX_FakeQuantOp : RLX_DiffOp<"fake_quant", [Pure, SameOperandsAndResultType]> {
  let summary = "rounds to a narrow float format and back (QAT)";
  let description = [{
    Each element of `x` (f32 or f64) rounded to the nearest value of a
    binary float format with `exponent_bits`, `mantissa_bits` and
    `exponent_bias` (ties to even, subnormals included), kept in x's type:
    the emulated fXmYeZ formats. `specials` says which codes are not finite
    numbers, as MLIR's float types do:

    - `ieee`: the top exponent holds inf and NaN (f8E5M2);
    - `fn`: no inf, the all-ones magnitude is NaN (f8E4M3FN);
    - `fnuz`: no inf and no -0, -0's code is NaN (f8E4M3FNUZ);
    - `finite`: every code is a number (f6E3M2FN, f4E2M1FN).

    Beyond the largest finite value: ±inf (`ieee`) or NaN (`fn`, `fnuz`),
    ±max for `finite` or with `saturate`. NaN stays NaN. Its derivative is
    the straight-through estimator: the identity.

    Example:

    ```mlir
    %q = rlx.fake_quant %w {exponent_bits = 4, mantissa_bits = 3,
                            exponent_bias = 7, specials = "fn"} : tensor<784x512xf32>
    ```
  }];
  let arguments = (ins RLX_FloatTensor:$x, I64Attr:$exponent_bits,
                       I64Attr:$mantissa_bits, I64Attr:$exponent_bias,
                       DefaultValuedStrAttr<StrAttr, "ieee">:$specials,
                       UnitAttr:$saturate);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The format the attributes describe, or nullopt for an unknown
    /// `specials`.
    std::optional<FloatFormat> getFormat();
  }];
}

#endif // RLX_DIALECT_RLXQUANTOPS_TD

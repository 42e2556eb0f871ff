//===- RLXLayoutOps.td - rlx data layout ops ------------------*- tablegen -*-===//
//
// A weight copied once into the layout a CPU kernel reads, so the kernel
// does not copy it at every call (what ONNX Runtime and oneDNN call
// prepacking): rlx-pack-dot-operands inserts the pair, rlx-prepare-params
// moves the pack into the prepare entry.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXLAYOUTOPS_TD
#define RLX_DIALECT_RLXLAYOUTOPS_TD

/// The dot-product kernels' i8 and bf16, the f32 kernel's f32, and the codes
/// and scales of a block-scaled weight (rlx.block_dequantize), packed in the
/// f32 panels and decoded by the f32 kernel panel by panel.
def RLX_DotOperandElement
    : AnyTypeOf<[I8, BF16, F32, F16, F8E4M3FN, F8E5M2, F8E4M3FNUZ, F8E5M2FNUZ,
                 F6E3M2FN, F6E2M3FN, F4E2M1FN, F8E8M0FNU, I<2>, I<3>, I<4>,
                 I<5>, I<6>, I<7>],
                "i8, bf16, f32, or a block-scaled weight's codes or scales "
                "(f16, a narrow float or integer, f8E8M0FNU)">;

def RLX_PackDotOperandOp : RLX_Op<"pack_dot_operand", [Pure]> {
  let summary = "a matmul's right operand in the CPU kernels' layout";
  let description = [{
    `b` (static shape `[..., N]`, read as `[K, N]` with K the product of the
    leading dims: a matmul's `[K, N]`, a conv filter's `[KH, KW, C, F]`) in
    the layout of the CPU's matmul kernels: the dot-product ones (vdpbf16ps
    for bf16, vpdpbusd for i8), whose lanes each multiply G consecutive k
    (G = 2 for bf16, 4 for i8), and the f32 one (G = 1: column panels). The
    result is `[P, KG, 32 * G]` with `P = ceil(N / 32)` panels of 32 columns
    and `KG = ceil(K / G)` groups:

    `result[p, g, c * G + t] = B[G * g + t, 32 * p + c]`, zero beyond B,

    and for i8 in groups of 4 each value plus 128 modulo 256 (its sign bit
    flipped): the unsigned operand of vpdpbusd. `rlx.unpack_dot_operand` is
    the inverse.

    The codes and scales of a block-scaled weight (`rlx.block_dequantize`
    along K: narrow float or integer codes, f8E8M0FNU/f16/f32 scales) take
    the f32 panels (G = 1): the f32 kernel decodes them panel by panel.
    So i8 may also be packed with G = 1 (MXINT8's codes; stored as they
    are): the result type says which. Codes narrower than a byte are stored
    one per byte, in the low bits of an i8 (the result's element type is
    then i8).

    Example:

    ```mlir
    %p = rlx.pack_dot_operand %w : (tensor<784x512xi8>) -> tensor<16x196x128xi8>
    %q = rlx.pack_dot_operand %v : (tensor<2304x256xf32>) -> tensor<8x2304x32xf32>
    %c = rlx.pack_dot_operand %codes : (tensor<512x64xf8E4M3FN>) -> tensor<2x512x32xf8E4M3FN>
    %m = rlx.pack_dot_operand %mxint8 : (tensor<512x64xi8>) -> tensor<2x512x32xi8>
    ```
  }];
  let arguments = (ins RankedTensorOf<[RLX_DotOperandElement]>:$b);
  let results = (outs RankedTensorOf<[RLX_DotOperandElement]>:$result);
  let assemblyFormat = "$b attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_UnpackDotOperandOp : RLX_Op<"unpack_dot_operand", [Pure]> {
  let summary = "the tensor a rlx.pack_dot_operand packed";
  let description = [{
    The inverse of `rlx.pack_dot_operand`: `packed` is the packed layout of
    a tensor of the result's (static) type. A matmul's right operand or a
    conv's filter that is an unpack is lowered to read the packed layout
    directly; anything else reads an unpacked copy.

    Example:

    ```mlir
    %w = rlx.unpack_dot_operand %p : (tensor<16x196x128xi8>) -> tensor<784x512xi8>
    ```
  }];
  let arguments = (ins RankedTensorOf<[RLX_DotOperandElement]>:$packed);
  let results = (outs RankedTensorOf<[RLX_DotOperandElement]>:$result);
  let assemblyFormat =
      "$packed attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLXLAYOUTOPS_TD

//===- RLXOps.td - rlx dialect ops ---------------------------*- tablegen -*-===//
//
// Every op of the rlx dialect: leaves, elementwise ops with NumPy
// broadcasting, contractions, convolution and pooling, reductions and shape
// ops. Shape errors are verifier errors at the op's location.
//
// An op whose result type follows from its operands and attributes infers it
// (InferTypeOpAdaptor, or ODS's own inference for SameOperandsAndResultType):
// builders take no result type, and the verifier compares the declared type
// with the inferred one. Each such op's shape rule is one function in
// ShapeInference.h. reshape, broadcast_in_dim, cast, constant and param take
// the result type from the user.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLXOPS_TD
#define RLX_DIALECT_RLXOPS_TD

include "dialects/RLX/IR/RLXBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "dialects/RLX/IR/RLXInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints and traits
//===----------------------------------------------------------------------===//

/// The float types ops compute in. The narrower ones (f8, f6, f4) are
/// storage formats: rlx.cast converts to and from them, shape ops move them.
def RLX_ComputeFloat : AnyTypeOf<[F16, BF16, F32, F64], "f16, bf16, f32 or f64">;
def RLX_FloatTensor : RankedTensorOf<[RLX_ComputeFloat]>;
def RLX_NumericTensor : RankedTensorOf<[RLX_ComputeFloat, AnySignlessInteger]>;
def RLX_BoolTensor : RankedTensorOf<[I1]>;
def RLX_IndexTensor : RankedTensorOf<[I32, I64]>;

/// An op with differentiation rules (RLXInterfaces.td); every compute op.
class RLX_DiffOp<string mnemonic, list<Trait> traits = []>
    : RLX_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<RLX_DifferentiableOpInterface>,
         DeclareOpInterfaceMethods<RLX_BatchableOpInterface>])>;

/// Verifies that the result shape is the NumPy broadcast of the operand
/// shapes (see BroadcastingShape in RLXTraits.h).
def RLX_BroadcastingShape : NativeOpTrait<"rlx::BroadcastingShape">;

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

def RLX_ParamOp : RLX_DiffOp<"param", [Pure]> {
  let summary = "a weight bound by name at run time";
  let description = [{
    Reads the weight named `name`. The runtime binds a tensor of exactly this
    dtype and static shape under that name (from a safetensors file or a host
    buffer) before the entry point is called. Names are free-form strings such
    as `encoder.layers.0.fc1.weight`. Two params with the same name in one
    module must agree on their type.

    Example:

    ```mlir
    %w = rlx.param "encoder.layers.0.fc1.weight" : tensor<784x128xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def RLX_ConstantOp : RLX_DiffOp<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor";
  let description = [{
    A tensor literal, embedded in the artifact.

    Example:

    ```mlir
    %c = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class RLX_BinaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : RLX_DiffOp<mnemonic, !listconcat(traits,
        [Pure, SameOperandsAndResultElementType, RLX_BroadcastingShape,
         InferTypeOpAdaptor])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferBroadcastingType(
          location, getOperationName(), adaptor.getOperands(),
          ::mlir::getElementTypeOrSelf(adaptor.getLhs()), types);
    }
  }];
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let description = [{
    Elementwise `}] # mnemonic # [{` with NumPy broadcasting: shapes align from
    the right and a static 1 stretches to the other side.

    Example:

    ```mlir
    %r = rlx.}] # mnemonic # [{ %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
}

def RLX_AddOp : RLX_BinaryOp<"add", RLX_NumericTensor, [Commutative]> {
  let summary = "elementwise addition";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def RLX_SubOp : RLX_BinaryOp<"sub", RLX_NumericTensor> {
  let summary = "elementwise subtraction";
  let hasFolder = 1;
}
def RLX_MulOp : RLX_BinaryOp<"mul", RLX_NumericTensor, [Commutative]> {
  let summary = "elementwise multiplication";
  let hasFolder = 1;
}
def RLX_DivOp : RLX_BinaryOp<"div", RLX_NumericTensor> {
  let summary = "elementwise division (integer division truncates; x / 0 = -1, INT_MIN / -1 = INT_MIN)";
  let hasFolder = 1;
}
def RLX_RemOp : RLX_BinaryOp<"rem", RLX_NumericTensor> {
  let summary = "elementwise remainder of the truncating division, with the sign of lhs (C's fmod; an integer x rem 0 = x, INT_MIN rem -1 = 0)";
}
def RLX_PowOp : RLX_BinaryOp<"pow", RLX_FloatTensor> {
  let summary = "elementwise power lhs^rhs";
}
def RLX_MaximumOp : RLX_BinaryOp<"maximum", RLX_NumericTensor, [Commutative]> {
  let summary = "elementwise maximum (NaN propagates)";
}
def RLX_MinimumOp : RLX_BinaryOp<"minimum", RLX_NumericTensor, [Commutative]> {
  let summary = "elementwise minimum (NaN propagates)";
}

class RLX_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : RLX_DiffOp<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])> {
  let arguments = (ins operandType:$x);
  let results = (outs operandType:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let description = [{
    Elementwise `}] # mnemonic # [{`, same type in and out.

    Example:

    ```mlir
    %r = rlx.}] # mnemonic # [{ %x : tensor<?x4xf32>
    ```
  }];
}

def RLX_NegOp : RLX_UnaryOp<"neg", RLX_NumericTensor> {
  let summary = "elementwise negation";
  let hasFolder = 1;
}
def RLX_AbsOp : RLX_UnaryOp<"abs", RLX_NumericTensor> {
  let summary = "elementwise absolute value";
}
def RLX_ExpOp : RLX_UnaryOp<"exp", RLX_FloatTensor> {
  let summary = "elementwise e^x";
}
def RLX_LogOp : RLX_UnaryOp<"log", RLX_FloatTensor> {
  let summary = "elementwise natural logarithm";
}
def RLX_SqrtOp : RLX_UnaryOp<"sqrt", RLX_FloatTensor> {
  let summary = "elementwise square root";
}
def RLX_RsqrtOp : RLX_UnaryOp<"rsqrt", RLX_FloatTensor> {
  let summary = "elementwise reciprocal square root";
}
def RLX_TanhOp : RLX_UnaryOp<"tanh", RLX_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
}
def RLX_ErfOp : RLX_UnaryOp<"erf", RLX_FloatTensor> {
  let summary = "elementwise Gauss error function";
}
def RLX_SinOp : RLX_UnaryOp<"sin", RLX_FloatTensor> {
  let summary = "elementwise sine (radians)";
}
def RLX_CosOp : RLX_UnaryOp<"cos", RLX_FloatTensor> {
  let summary = "elementwise cosine (radians)";
}
def RLX_AtanOp : RLX_UnaryOp<"atan", RLX_FloatTensor> {
  let summary = "elementwise arctangent, in (-pi/2, pi/2)";
}
def RLX_SigmoidOp : RLX_UnaryOp<"sigmoid", RLX_FloatTensor> {
  let summary = "elementwise logistic sigmoid 1 / (1 + e^-x)";
}
def RLX_ReluOp : RLX_UnaryOp<"relu", RLX_NumericTensor> {
  let summary = "elementwise max(x, 0)";
}

def RLX_GeluOp : RLX_DiffOp<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `approximate = "tanh"` (the default, JAX's default):
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`;
    `approximate = "erf"`: the exact `0.5 x (1 + erf(x / sqrt(2)))`.

    Example:

    ```mlir
    %r = rlx.gelu %x {approximate = "erf"} : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins RLX_FloatTensor:$x,
                       DefaultValuedAttr<StrAttr, "\"tanh\"">:$approximate);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def RLX_CompareOp : RLX_DiffOp<"compare",
    [Pure, SameOperandsElementType, RLX_BroadcastingShape, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares `lhs` and `rhs` elementwise with `direction`, one of `eq`, `ne`,
    `lt`, `le`, `gt`, `ge`, giving `i1`. Floats compare ordered (any NaN gives
    false, except `ne`, which gives true).

    Example:

    ```mlir
    %m = rlx.compare "gt", %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins StrAttr:$direction, RLX_NumericTensor:$lhs,
                       RLX_NumericTensor:$rhs);
  let results = (outs RLX_BoolTensor:$result);
  let assemblyFormat = [{
    $direction `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def RLX_SelectOp : RLX_DiffOp<"select",
    [Pure, RLX_BroadcastingShape, InferTypeOpAdaptor]> {
  let summary = "elementwise choice: cond ? on_true : on_false";
  let description = [{
    All three operands broadcast together.

    Example:

    ```mlir
    %r = rlx.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins RLX_BoolTensor:$cond, AnyRankedTensor:$on_true,
                       AnyRankedTensor:$on_false);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$cond `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RLX_CastOp : RLX_DiffOp<"cast", [Pure]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element: float to float rounds to nearest (ties to even),
    float to integer truncates toward zero, integer to float rounds, i1 is 0
    or 1.

    The unsigned integers `ui8`, `ui16`, `ui32`, `ui64` are read and written
    by casts only (every other op computes on signless integers): from them
    a cast zero-extends or converts as unsigned; to them it truncates to the
    low bits (integers sign-extend first; floats convert through i64, so
    -1.0 becomes 255 in ui8, as NumPy's casts do on x86).

    The narrow float types (`f8E4M3FN`, `f8E5M2`, `f8E4M3FNUZ`, `f8E5M2FNUZ`,
    `f8E4M3B11FNUZ`, `f8E4M3`, `f8E3M4`, `f6E3M2FN`, `f6E2M3FN`,
    `f4E2M1FN`) are storage formats, one element per byte: casts to them
    round once from the source, bit-exact with the `ml_dtypes` package.
    Values beyond the largest finite one become inf where the format has it,
    else NaN, and ±max in formats with neither; `saturate` makes them ±max
    in every format (NaN stays NaN).

    With a `key` (a random key, `tensor<batch... x 2 x i32>` as
    rlx.fake_quant takes it), an f32 or f64 `x` cast to a float type of
    fewer mantissa bits (bf16, f16, the narrow floats) rounds
    stochastically: exactly as `rlx.fake_quant` with that key and the
    result type's format (and `saturate`) rounds, each element to one of
    its two neighbours, the upper with probability its distance from the
    lower in ulps (unbiased); the key carries no derivative.

    Example:

    ```mlir
    %r = rlx.cast %x : tensor<?x4xf32> -> tensor<?x4xf64>
    %q = rlx.cast %x {saturate} : tensor<?x4xf32> -> tensor<?x4xf8E4M3FN>
    %s = rlx.cast %x key %k : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x4xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, Optional<AnyRankedTensor>:$key,
                       UnitAttr:$saturate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$x (`key` $key^)? attr-dict `:` type($x) (`,` type($key)^)? `->` "
      "type($result)";
  let builders = [
    // A cast rounding to nearest (no key), as almost every caller builds.
    OpBuilder<(ins "Type":$result, "Value":$x,
                   CArg<"bool", "false">:$saturate), [{
      build($_builder, $_state, result, x, Value(), saturate);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The result type's format, for a cast with a key (see the verifier).
    std::optional<FloatFormat> getStochasticFormat();
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RLX_BitcastOp : RLX_DiffOp<"bitcast", [Pure]> {
  let summary = "elementwise reinterpretation of bits (lax.bitcast_convert_type)";
  let description = [{
    Each element's bits read as the result's element type, of the same bit
    width: how the codes of a narrow float are read and written as integers.
    No derivative flows through it.

    Example:

    ```mlir
    %b = rlx.bitcast %q : tensor<?x4xf8E4M3FN> -> tensor<?x4xi8>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions, convolution, pooling
//===----------------------------------------------------------------------===//

def RLX_MatmulOp : RLX_DiffOp<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product with broadcasting batch dims";
  let description = [{
    `lhs` is `[..., M, K]`, `rhs` is `[..., K, N]`, both of rank 2 or more; the
    leading batch dims broadcast like NumPy's and the result is
    `[broadcast(batch), M, N]`. Operands and result share one element type,
    except that i8 operands may give an i32 result, the products summed in
    i32 (ONNX's MatMulInteger, XLA's preferred element type): int8
    inference.

    Example:

    ```mlir
    %y = rlx.matmul %x, %w : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
    %q = rlx.matmul %a, %b : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$lhs, RLX_NumericTensor:$rhs);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// An i32 result of i8 operands is the inferred i8 one, widened.
    static bool isCompatibleReturnTypes(TypeRange inferred, TypeRange actual);
  }];
}

def RLX_Conv2DOp : RLX_DiffOp<"conv2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution, NHWC input and HWIO filter";
  let description = [{
    `input` is `[N, H, W, C]`, `filter` is `[KH, KW, C / groups, F]` with `F`
    divisible by `groups`; the result is `[N, OH, OW, F]` with
    `OH = (H + pad_top + pad_bottom - dil_h * (KH - 1) - 1) / stride_h + 1`
    (likewise OW). `padding` is `[top, bottom, left, right]` zeros. Input,
    filter and result are floats of one type, or i8 input and filter with
    an i32 result, the products summed in i32 (int8 inference).

    Example:

    ```mlir
    %y = rlx.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
        : (tensor<?x28x28x1xf32>, tensor<3x3x1x8xf32>) -> tensor<?x14x14x8xf32>
    ```
  }];
  let arguments = (ins RLX_NumericTensor:$input, RLX_NumericTensor:$filter,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat =
      "$input `,` $filter attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// An i32 result of i8 operands is the inferred i8 one, widened.
    static bool isCompatibleReturnTypes(TypeRange inferred, TypeRange actual);
  }];
}

class RLX_Pool2DOp<string mnemonic>
    : RLX_DiffOp<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = (ins RLX_FloatTensor:$input,
      DenseI64ArrayAttr:$window,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferPoolType(location, getOperationName(), adaptor, types);
    }
  }];
}

def RLX_MaxPool2DOp : RLX_Pool2DOp<"max_pool2d"> {
  let summary = "2-D max pooling over NHWC";
  let description = [{
    Maximum over each `window` of `[N, H, W, C]`; padded positions never win.
    Output sizes follow conv2d's formula.

    Example:

    ```mlir
    %y = rlx.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x28x28x8xf32>) -> tensor<?x14x14x8xf32>
    ```
  }];
}

def RLX_AvgPool2DOp : RLX_Pool2DOp<"avg_pool2d"> {
  let summary = "2-D average pooling over NHWC";
  let description = [{
    Mean over each `window` of `[N, H, W, C]`; padded zeros count in the
    divisor (PyTorch's `count_include_pad=True`). Output sizes follow
    conv2d's formula.

    Example:

    ```mlir
    %y = rlx.avg_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<?x28x28x8xf32>) -> tensor<?x14x14x8xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class RLX_ReduceOp<string mnemonic>
    : RLX_DiffOp<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = (ins RLX_NumericTensor:$x, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs RLX_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return inferReductionType(location, getOperationName(), adaptor, types);
    }
  }];
  let description = [{
    Reduces `x` over the distinct, in-range `axes` with `}] # mnemonic # [{`;
    with `keepdims` the reduced axes stay as size 1.

    Example:

    ```mlir
    %r = rlx.}] # mnemonic # [{ %x {axes = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<?xf32>
    ```
  }];
}

def RLX_SumOp : RLX_ReduceOp<"sum"> { let summary = "sum over axes"; }
def RLX_MeanOp : RLX_ReduceOp<"mean"> { let summary = "mean over axes"; }
def RLX_MaxOp : RLX_ReduceOp<"max"> { let summary = "maximum over axes"; }

class RLX_SoftmaxLikeOp<string mnemonic>
    : RLX_DiffOp<mnemonic, [Pure, SameOperandsAndResultType]> {
  let arguments = (ins RLX_FloatTensor:$x, I64Attr:$axis);
  let results = (outs RLX_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
  let description = [{
    Numerically stable `}] # mnemonic # [{` along `axis` (the maximum is
    subtracted first).

    Example:

    ```mlir
    %p = rlx.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<?x10xf32>
    ```
  }];
}

def RLX_SoftmaxOp : RLX_SoftmaxLikeOp<"softmax"> {
  let summary = "softmax along an axis";
}
def RLX_LogSoftmaxOp : RLX_SoftmaxLikeOp<"log_softmax"> {
  let summary = "log of softmax along an axis";
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def RLX_ReshapeOp : RLX_DiffOp<"reshape", [Pure]> {
  let summary = "row-major reshape to the result type";
  let description = [{
    Same elements, same row-major order, new shape. When the operand has
    dynamic dims the result has some too. With one, it is sized at run time
    so the element count is kept (the element count must then be divisible
    by the result's static dims). With several, the dims must pair up: the
    shapes split into consecutive groups of the same static element count
    holding one dynamic dim on each side (or none), and each dynamic result
    dim equals the dynamic operand dim of its group
    (`tensor<?x?xf32> -> tensor<?x?x1xf32>`, `tensor<?x?x4xf32> ->
    tensor<?x?x2x2xf32>`).

    Example:

    ```mlir
    %r = rlx.reshape %x : (tensor<?x28x28xf32>) -> tensor<?x784xf32>
    %k = rlx.reshape %s : (tensor<?x?xf32>) -> tensor<?x?x1xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RLX_TransposeOp : RLX_DiffOp<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes dims: result dim i is operand dim permutation[i]";
  let description = [{
    Example:

    ```mlir
    %t = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RLX_BroadcastInDimOp : RLX_DiffOp<"broadcast_in_dim", [Pure]> {
  let summary = "broadcasts to the result shape, operand dim i to result dim broadcast_dimensions[i]";
  let description = [{
    Each operand dim equals its result dim or is 1; result dims that no
    operand dim maps to are static.

    Example:

    ```mlir
    %b = rlx.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x,
                       DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RLX_SliceOp : RLX_DiffOp<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "strided slice start:limit:stride per dim";
  let description = [{
    Per dim `d`, takes `start[d], start[d] + strides[d], ...` below
    `limit[d]`; a `limit` of -1 means the end of the dim. On a dynamic dim
    the stride is 1, a negative `start` counts from the end, a `limit` below
    -1 counts from the end too (-2 drops the last element); the result dim
    is dynamic and the bounds are clamped into the dim at run time.

    Example:

    ```mlir
    %s = rlx.slice %x {start = array<i64: 0, 1>, limit = array<i64: -1, 4>, strides = array<i64: 1, 2>}
        : (tensor<?x5xf32>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_PadOp : RLX_DiffOp<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pads with a scalar value: low, high and interior per dim";
  let description = [{
    Puts `padding_value` (a rank-0 tensor) before (`low`), after (`high`)
    and between (`interior`) the elements of each dim; all non-negative, and
    0 on dynamic dims. Result dim: `low + size + (size - 1) * interior +
    high`. The adjoint of a strided slice.

    Example:

    ```mlir
    %p = rlx.pad %x, %zero {low = array<i64: 0, 1>, high = array<i64: 0, 2>, interior = array<i64: 0, 1>}
        : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$padding_value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       DenseI64ArrayAttr:$interior);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$x `,` $padding_value attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_ConcatOp : RLX_DiffOp<"concat",
    [Pure, SameOperandsAndResultElementType, InferTypeOpAdaptor]> {
  let summary = "concatenation along an axis";
  let description = [{
    All inputs agree on every dim but `axis`.

    Example:

    ```mlir
    %c = rlx.concat %a, %b {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def RLX_GatherOp : RLX_DiffOp<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "takes slices of x along axis at the given indices";
  let description = [{
    NumPy's `take(x, indices, axis)`: the result shape is
    `x.shape[:axis] ++ indices.shape ++ x.shape[axis+1:]`. Indices out of
    range are clamped into `[0, x.shape[axis] - 1]`. With `axis = 0` this is
    an embedding lookup.

    Example:

    ```mlir
    %e = rlx.gather %table, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x16xi32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, RLX_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

include "dialects/RLX/IR/RLXMarkers.td"
include "dialects/RLX/IR/RLXControlFlow.td"
include "dialects/RLX/IR/RLXRandomOps.td"
include "dialects/RLX/IR/RLXQuantOps.td"
include "dialects/RLX/IR/RLXLayoutOps.td"
include "dialects/RLX/IR/RLXCollectiveOps.td"

#endif // RLX_DIALECT_RLXOPS_TD

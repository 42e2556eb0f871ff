//===- RecurrentOps.cpp - ONNX RNN, GRU and LSTM as rlx.scan --------------===//
///
/// \file
/// ONNX's recurrent layers, each direction one rlx.scan over the sequence.
/// The input projection of every step (X W^T plus the biases that are not
/// inside the reset gate) is one matmul before the loop; the body, a
/// private function built here, adds H R^T and applies the gates. So the
/// layers differentiate (fine-tuning an imported LSTM) and run with a
/// dynamic batch and sequence length like any rlx.scan.
///
/// sequence_lens (a length per batch row) is a mask read by each step: a
/// step past a row's length keeps its state and outputs zeros. Run in
/// reverse, the masked steps come first and keep the initial state, so each
/// row's reverse pass starts at its own last element, as ONNX's does.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mlir::rlx::onnx_import {
namespace {

enum class Cell { RNN, GRU, LSTM };

/// The gates of each cell, in ONNX's order within W, R and B: RNN i; GRU
/// z, r, h; LSTM i, o, f, c.
int64_t numGates(Cell cell) {
  return cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
}

/// One activation function of the `activations` attribute with its alpha
/// and beta (ONNX's defaults where the attribute lists run out).
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

/// Whether the named activation reads alpha / beta, and their defaults
/// (those of the ONNX ops of the same name; Affine and ScaledTanh as ONNX
/// Runtime's).
bool takesAlpha(StringRef n) {
  return n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" ||
         n == "ScaledTanh" || n == "HardSigmoid" || n == "Elu";
}
bool takesBeta(StringRef n) {
  return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
}
float defaultAlpha(StringRef n) {
  return n == "LeakyRelu" ? 0.01f : n == "HardSigmoid" ? 0.2f : 1.0f;
}
float defaultBeta(StringRef n) {
  return n == "HardSigmoid" ? 0.5f : n == "ScaledTanh" ? 1.0f : 0.0f;
}

/// The activations of every direction (`perDirection` each), alphas and
/// betas consumed in order by the functions that take them.
FailureOr<SmallVector<Activation>> readActivations(NodeContext &ctx, Cell cell,
                                                   int64_t directions) {
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *attr = ctx.attribute("activations")) {
    for (const std::string &name : attr->strings())
      names.push_back(name);
  } else {
    SmallVector<std::string> defaults =
        cell == Cell::RNN   ? SmallVector<std::string>{"Tanh"}
        : cell == Cell::GRU ? SmallVector<std::string>{"Sigmoid", "Tanh"}
                            : SmallVector<std::string>{"Sigmoid", "Tanh",
                                                       "Tanh"};
    for (int64_t d = 0; d < directions; ++d)
      llvm::append_range(names, defaults);
  }
  int64_t perDirection = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 2 : 3;
  if (int64_t(names.size()) != perDirection * directions) {
    (void)ctx.unsupportedAttribute(
        "activations", "needs " + std::to_string(perDirection * directions) +
                           " names (" + std::to_string(perDirection) +
                           " per direction)");
    return failure();
  }
  SmallVector<float> alphas, betas;
  if (const onnx::AttributeProto *attr = ctx.attribute("activation_alpha"))
    alphas.assign(attr->floats().begin(), attr->floats().end());
  if (const onnx::AttributeProto *attr = ctx.attribute("activation_beta"))
    betas.assign(attr->floats().begin(), attr->floats().end());
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> result;
  static const StringRef kKnown[] = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu",
      "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu", "Softsign",
      "Softplus"};
  for (const std::string &name : names) {
    if (!llvm::is_contained(kKnown, StringRef(name))) {
      (void)ctx.unsupportedAttribute("activations",
                                     "unknown function '" + name + "'");
      return failure();
    }
    Activation a{name, defaultAlpha(name), defaultBeta(name)};
    if (takesAlpha(name) && nextAlpha < alphas.size())
      a.alpha = alphas[nextAlpha++];
    if (takesBeta(name) && nextBeta < betas.size())
      a.beta = betas[nextBeta++];
    result.push_back(a);
  }
  return result;
}

/// Small checked-builder helpers; each returns failure after an error.
struct Ops {
  NodeContext &ctx;
  Type type;
  Value c(double v) { return scalar(ctx, type, v); }
  FailureOr<Value> add(Value a, Value b) { return ctx.create<AddOp>(a, b); }
  FailureOr<Value> sub(Value a, Value b) { return ctx.create<SubOp>(a, b); }
  FailureOr<Value> mul(Value a, Value b) { return ctx.create<MulOp>(a, b); }
  FailureOr<Value> div(Value a, Value b) { return ctx.create<DivOp>(a, b); }
  FailureOr<Value> matmul(Value a, Value b) {
    return ctx.create<MatmulOp>(a, b);
  }
  /// Columns [begin, begin + size) of a rank-2 `x`.
  FailureOr<Value> columns(Value x, int64_t begin, int64_t size) {
    return ctx.create<SliceOp>(x, Ints{0, begin}, Ints{-1, begin + size},
                               Ints{1, 1});
  }
};

FailureOr<Value> activate(Ops &o, const Activation &a, Value x) {
  NodeContext &ctx = o.ctx;
  StringRef n = a.name;
  if (n == "Sigmoid")
    return ctx.create<SigmoidOp>(x);
  if (n == "Tanh")
    return ctx.create<TanhOp>(x);
  if (n == "Relu")
    return ctx.create<ReluOp>(x);
  if (n == "Affine") {
    FailureOr<Value> y = o.mul(x, o.c(a.alpha));
    return failed(y) ? y : o.add(*y, o.c(a.beta));
  }
  if (n == "LeakyRelu") {
    FailureOr<Value> scaled = o.mul(x, o.c(a.alpha));
    FailureOr<Value> positive = ctx.create<CompareOp>("gt", x, o.c(0.0));
    if (failed(scaled) || failed(positive))
      return failure();
    return ctx.create<SelectOp>(*positive, x, *scaled);
  }
  if (n == "ThresholdedRelu") {
    FailureOr<Value> above = ctx.create<CompareOp>("gt", x, o.c(a.alpha));
    return failed(above) ? above : ctx.create<SelectOp>(*above, x, o.c(0.0));
  }
  if (n == "ScaledTanh") {
    FailureOr<Value> y = o.mul(x, o.c(a.beta));
    if (failed(y) || failed(y = ctx.create<TanhOp>(*y)))
      return failure();
    return o.mul(*y, o.c(a.alpha));
  }
  if (n == "HardSigmoid") {
    FailureOr<Value> y = o.mul(x, o.c(a.alpha));
    if (failed(y) || failed(y = o.add(*y, o.c(a.beta))) ||
        failed(y = ctx.create<MaximumOp>(*y, o.c(0.0))))
      return failure();
    return ctx.create<MinimumOp>(*y, o.c(1.0));
  }
  if (n == "Elu") {
    // alpha (e^x - 1) for x <= 0 (e^min(x, 0): no overflow on the side
    // that is not taken).
    FailureOr<Value> e = ctx.create<MinimumOp>(x, o.c(0.0));
    if (failed(e) || failed(e = ctx.create<ExpOp>(*e)) ||
        failed(e = o.sub(*e, o.c(1.0))) || failed(e = o.mul(*e, o.c(a.alpha))))
      return failure();
    FailureOr<Value> positive = ctx.create<CompareOp>("gt", x, o.c(0.0));
    return failed(positive) ? positive
                            : ctx.create<SelectOp>(*positive, x, *e);
  }
  if (n == "Softsign") {
    FailureOr<Value> d = ctx.create<AbsOp>(x);
    if (failed(d) || failed(d = o.add(*d, o.c(1.0))))
      return failure();
    return o.div(x, *d);
  }
  // Softplus: max(x, 0) + log(1 + e^-|x|), which does not overflow.
  FailureOr<Value> negAbs = ctx.create<AbsOp>(x);
  if (failed(negAbs) || failed(negAbs = ctx.create<NegOp>(*negAbs)) ||
      failed(negAbs = ctx.create<ExpOp>(*negAbs)) ||
      failed(negAbs = o.add(*negAbs, o.c(1.0))) ||
      failed(negAbs = ctx.create<LogOp>(*negAbs)))
    return failure();
  FailureOr<Value> relu = ctx.create<ReluOp>(x);
  return failed(relu) ? relu : o.add(*relu, *negAbs);
}

/// The node's attributes and the shapes they imply.
struct Layer {
  Cell cell;
  int64_t hidden = 0, directions = 1, layout = 0;
  bool reverse = false;
  std::optional<float> clip;
  bool linearBeforeReset = false, inputForget = false;
  SmallVector<Activation> activations;
  Type type;
};

/// The operands of one direction's step function, in its argument order:
/// consts (R^T, then what the cell adds), carries (h, and c for LSTM),
/// then the step's xs (the projected input, then the mask).
struct StepOperands {
  Value rT;
  std::optional<Value> peepholes;    // LSTM's P: [3H] (i, o, f)
  std::optional<Value> resetBias;    // GRU with linear_before_reset: Rb_h
  SmallVector<Value> init;           // h0 (and c0)
  Value projected;                   // [T, B, gates * H]
  std::optional<Value> mask;         // [T, B, 1]
};

/// Builds the private function of one step of `layer`'s direction `d`,
/// its operands typed like `ops`'s; returns it.
FailureOr<func::FuncOp> buildStep(NodeContext &ctx, const Layer &layer,
                                  int64_t d, const StepOperands &ops) {
  OpBuilder &b = ctx.builder();
  MLIRContext *context = b.getContext();
  SmallVector<Type> argTypes{ops.rT.getType()};
  if (ops.peepholes)
    argTypes.push_back(ops.peepholes->getType());
  if (ops.resetBias)
    argTypes.push_back(ops.resetBias->getType());
  for (Value v : ops.init)
    argTypes.push_back(v.getType());
  auto stepType = [](Value stacked) {
    return RankedTensorType::get(typeOf(stacked).getShape().drop_front(),
                                 typeOf(stacked).getElementType());
  };
  argTypes.push_back(stepType(ops.projected));
  if (ops.mask)
    argTypes.push_back(stepType(*ops.mask));

  OpBuilder detached(context);
  std::string label = ctx.node.name().empty()
                          ? ctx.node.op_type() + std::to_string(ctx.index)
                          : ctx.node.name();
  auto fn = func::FuncOp::create(detached, ctx.loc,
                                 "main__" + label + "_step" + std::to_string(d),
                                 FunctionType::get(context, argTypes, {}));
  fn.setPrivate();
  SymbolTable(ctx.importer.module).insert(fn);
  Block *block = fn.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);

  unsigned next = 0;
  Value rT = block->getArgument(next++);
  std::optional<Value> p, rbh;
  if (ops.peepholes)
    p = block->getArgument(next++);
  if (ops.resetBias)
    rbh = block->getArgument(next++);
  Value h = block->getArgument(next++);
  std::optional<Value> c;
  if (layer.cell == Cell::LSTM)
    c = block->getArgument(next++);
  Value xw = block->getArgument(next++);
  std::optional<Value> mask;
  if (ops.mask)
    mask = block->getArgument(next++);

  Ops o{ctx, layer.type};
  int64_t H = layer.hidden;
  ArrayRef<Activation> acts =
      ArrayRef<Activation>(layer.activations)
          .slice(d * (layer.activations.size() / layer.directions),
                 layer.activations.size() / layer.directions);
  auto clipped = [&](FailureOr<Value> x) -> FailureOr<Value> {
    if (failed(x) || !layer.clip)
      return x;
    FailureOr<Value> y = ctx.create<MaximumOp>(*x, o.c(-*layer.clip));
    return failed(y) ? y : ctx.create<MinimumOp>(*y, o.c(*layer.clip));
  };
  // h R^T for the gates that add it whole: all but GRU's candidate unless
  // its reset applies after the product (linear_before_reset).
  Value recurrentWeight = rT;
  if (layer.cell == Cell::GRU && !layer.linearBeforeReset) {
    FailureOr<Value> zr =
        ctx.create<SliceOp>(rT, Ints{0, 0}, Ints{-1, 2 * H}, Ints{1, 1});
    if (failed(zr))
      return failure();
    recurrentWeight = *zr;
  }
  FailureOr<Value> hr = o.matmul(h, recurrentWeight);
  if (failed(hr))
    return failure();
  /// Gate g's columns of xw plus, with `withRecurrent`, of h R^T.
  auto gate = [&](int64_t g, bool withRecurrent = true) -> FailureOr<Value> {
    FailureOr<Value> x = o.columns(xw, g * H, H);
    if (failed(x) || !withRecurrent)
      return x;
    FailureOr<Value> r = o.columns(*hr, g * H, H);
    return failed(r) ? r : o.add(*x, *r);
  };
  auto peephole = [&](FailureOr<Value> x, int64_t k,
                      Value state) -> FailureOr<Value> {
    if (failed(x) || !p)
      return x;
    FailureOr<Value> pk = ctx.create<SliceOp>(*p, Ints{k * H},
                                              Ints{(k + 1) * H}, Ints{1});
    FailureOr<Value> term = failed(pk) ? pk : o.mul(*pk, state);
    return failed(term) ? term : o.add(*x, *term);
  };

  FailureOr<Value> newH = failure();
  std::optional<Value> newC;
  switch (layer.cell) {
  case Cell::RNN: {
    FailureOr<Value> pre = clipped(gate(0));
    newH = failed(pre) ? pre : activate(o, acts[0], *pre);
    break;
  }
  case Cell::GRU: {
    FailureOr<Value> z = clipped(gate(0)), r = clipped(gate(1));
    if (failed(z) || failed(z = activate(o, acts[0], *z)) || failed(r) ||
        failed(r = activate(o, acts[0], *r)))
      return failure();
    FailureOr<Value> candidate = failure();
    if (layer.linearBeforeReset) {
      // r (h Rh^T + Rb_h), the recurrent bias inside the reset.
      FailureOr<Value> rec = o.columns(*hr, 2 * H, H);
      if (failed(rec) || failed(rec = o.add(*rec, *rbh)) ||
          failed(rec = o.mul(*r, *rec)))
        return failure();
      FailureOr<Value> x = gate(2, /*withRecurrent=*/false);
      candidate = failed(x) ? x : o.add(*x, *rec);
    } else {
      // (r h) Rh^T: the reset applied before the recurrent product.
      FailureOr<Value> rh = o.mul(*r, h);
      FailureOr<Value> rhT = ctx.create<SliceOp>(rT, Ints{0, 2 * H},
                                                 Ints{-1, 3 * H}, Ints{1, 1});
      if (failed(rh) || failed(rhT) || failed(rh = o.matmul(*rh, *rhT)))
        return failure();
      FailureOr<Value> x = gate(2, /*withRecurrent=*/false);
      candidate = failed(x) ? x : o.add(*x, *rh);
    }
    candidate = clipped(candidate);
    if (failed(candidate) ||
        failed(candidate = activate(o, acts[1], *candidate)))
      return failure();
    // (1 - z) candidate + z h = candidate + z (h - candidate).
    FailureOr<Value> delta = o.sub(h, *candidate);
    if (failed(delta) || failed(delta = o.mul(*z, *delta)))
      return failure();
    newH = o.add(*candidate, *delta);
    break;
  }
  case Cell::LSTM: {
    FailureOr<Value> i = clipped(peephole(gate(0), 0, *c));
    if (failed(i) || failed(i = activate(o, acts[0], *i)))
      return failure();
    FailureOr<Value> f = failure();
    if (layer.inputForget)
      f = o.sub(o.c(1.0), *i);
    else if (succeeded(f = clipped(peephole(gate(2), 2, *c))))
      f = activate(o, acts[0], *f);
    FailureOr<Value> g = clipped(gate(3));
    if (failed(f) || failed(g) || failed(g = activate(o, acts[1], *g)))
      return failure();
    FailureOr<Value> fc = o.mul(*f, *c), ig = o.mul(*i, *g);
    FailureOr<Value> cell =
        failed(fc) || failed(ig) ? FailureOr<Value>(failure())
                                 : o.add(*fc, *ig);
    if (failed(cell))
      return failure();
    FailureOr<Value> out = clipped(peephole(gate(1), 1, *cell));
    FailureOr<Value> hc =
        failed(out) ? out : activate(o, acts[2], *cell);
    if (failed(out) || failed(out = activate(o, acts[0], *out)) ||
        failed(hc))
      return failure();
    newH = o.mul(*out, *hc);
    newC = *cell;
    break;
  }
  }
  if (failed(newH))
    return failure();
  SmallVector<Value> results;
  Value y = *newH;
  if (mask) {
    // Past the row's length: the state kept, a zero output.
    FailureOr<Value> keep = ctx.create<CompareOp>("gt", *mask, o.c(0.5));
    if (failed(keep) || failed(newH = ctx.create<SelectOp>(*keep, *newH, h)))
      return failure();
    if (newC) {
      FailureOr<Value> keptC = ctx.create<SelectOp>(*keep, *newC, *c);
      if (failed(keptC))
        return failure();
      newC = *keptC;
    }
    FailureOr<Value> zeroed = o.mul(y, *mask);
    if (failed(zeroed))
      return failure();
    y = *zeroed;
  }
  results.push_back(*newH);
  if (newC)
    results.push_back(*newC);
  results.push_back(y);
  func::ReturnOp::create(b, ctx.loc, results);
  fn.setFunctionType(
      FunctionType::get(context, argTypes, ValueRange(results).getTypes()));
  return fn;
}

/// Direction `d` (dim 0) of a [directions, ...] input: [...].
FailureOr<Value> direction(NodeContext &ctx, Value x, int64_t d) {
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  Ints start(shape.size(), 0), limit(shape.size(), -1),
      strides(shape.size(), 1);
  start[0] = d;
  limit[0] = d + 1;
  FailureOr<Value> slice = ctx.create<SliceOp>(x, start, limit, strides);
  if (failed(slice))
    return failure();
  return reshape(ctx, *slice, shape.drop_front());
}

/// X W^T for every step at once: [T, B, I] x [I, G] as one 2-D matmul
/// when at most one of T and B is dynamic (a reshape sizes one dynamic
/// dim), else batched over T.
FailureOr<Value> project(NodeContext &ctx, Value seq, Value wT) {
  ArrayRef<int64_t> shape = typeOf(seq).getShape();
  if (ShapedType::isDynamic(shape[0]) && ShapedType::isDynamic(shape[1]))
    return ctx.create<MatmulOp>(seq, wT);
  int64_t rows = ShapedType::isDynamic(shape[0]) || ShapedType::isDynamic(shape[1])
                     ? ShapedType::kDynamic
                     : shape[0] * shape[1];
  FailureOr<Value> y =
      ctx.create<MatmulOp>(reshape(ctx, seq, {rows, shape[2]}), wT);
  if (failed(y))
    return failure();
  return reshape(ctx, *y, {shape[0], shape[1], typeOf(wT).getDimSize(1)});
}

/// Zeros of [B, H] with B the batch of the [T, B, I] `x` (dynamic or not):
/// `select(true, zeros, carrier)` takes its dims from a [B, 1] slice of x
/// and none of its values.
FailureOr<Value> zeroState(NodeContext &ctx, Value x, int64_t hidden,
                           Type type) {
  int64_t batch = typeOf(x).getDimSize(1);
  auto zerosType = RankedTensorType::get({ShapedType::isDynamic(batch) ? 1 : batch,
                                          hidden},
                                         type);
  Value zeros = ctx.importer.materialize(
      DenseElementsAttr::get(zerosType, FloatAttr::get(type, 0.0)), ctx.loc);
  if (!ShapedType::isDynamic(batch))
    return zeros;
  FailureOr<Value> carrier =
      ctx.create<SliceOp>(x, Ints{0, 0, 0}, Ints{1, -1, 1}, Ints{1, 1, 1});
  if (failed(carrier))
    return failure();
  return ctx.create<SelectOp>(scalar(ctx, ctx.builder().getI1Type(), 1), zeros,
                              reshape(ctx, *carrier, {batch, 1}));
}

/// The initial state input `index` ([directions, B, H], or [B, directions,
/// H] with layout 1) of direction `d`, or zeros.
FailureOr<Value> initialState(NodeContext &ctx, const Layer &layer,
                              unsigned index, int64_t d, Value x) {
  if (!ctx.hasInput(index))
    return zeroState(ctx, x, layer.hidden, layer.type);
  FailureOr<Value> s = ctx.input(index);
  if (failed(s))
    return failure();
  if (typeOf(*s).getRank() != 3)
    return ctx.error() << "input " << index << " must have rank 3";
  if (layer.layout == 1 && failed(s = transpose(ctx, *s, {1, 0, 2})))
    return failure();
  return direction(ctx, *s, d);
}

LogicalResult convertRecurrent(NodeContext &ctx, Cell cell) {
  SmallVector<StringRef> known{"activation_alpha", "activation_beta",
                               "activations",      "clip",
                               "direction",        "hidden_size",
                               "layout"};
  if (cell == Cell::GRU)
    known.push_back("linear_before_reset");
  if (cell == Cell::LSTM)
    known.push_back("input_forget");
  if (failed(ctx.checkKnownAttributes(known)))
    return failure();
  Layer layer;
  layer.cell = cell;
  FailureOr<std::string> dir = ctx.getString("direction", "forward");
  FailureOr<int64_t> hidden = ctx.getInt("hidden_size", -1),
                     layout = ctx.getInt("layout", 0),
                     lbr = ctx.getInt("linear_before_reset", 0),
                     inputForget = ctx.getInt("input_forget", 0);
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1), r = ctx.input(2);
  if (failed(dir) || failed(hidden) || failed(layout) || failed(lbr) ||
      failed(inputForget) || failed(x) || failed(w) || failed(r))
    return failure();
  if (*dir != "forward" && *dir != "reverse" && *dir != "bidirectional")
    return ctx.unsupportedAttribute("direction",
                                    "unknown value '" + *dir + "'");
  if (*layout != 0 && *layout != 1)
    return ctx.unsupportedAttribute("layout", "must be 0 or 1");
  if (ctx.attribute("clip")) {
    FailureOr<float> clip = ctx.getFloat("clip", 0.0f);
    if (failed(clip))
      return failure();
    if (!(*clip > 0))
      return ctx.unsupportedAttribute("clip", "must be positive");
    layer.clip = *clip;
  }
  layer.directions = *dir == "bidirectional" ? 2 : 1;
  layer.reverse = *dir == "reverse";
  layer.layout = *layout;
  layer.linearBeforeReset = *lbr != 0;
  layer.inputForget = *inputForget != 0;
  RankedTensorType xType = typeOf(*x), wType = typeOf(*w), rType = typeOf(*r);
  layer.type = xType.getElementType();
  if (!isa<FloatType>(layer.type))
    return ctx.error() << "X must be a float tensor";
  if (xType.getRank() != 3 || !wType.hasStaticShape() ||
      wType.getRank() != 3 || !rType.hasStaticShape() || rType.getRank() != 3)
    return ctx.error() << "X must have rank 3, and W and R rank 3 with static "
                          "shapes";
  int64_t gates = numGates(cell);
  int64_t H = rType.getDimSize(2);
  if (*hidden >= 0 && *hidden != H)
    return ctx.unsupportedAttribute("hidden_size",
                                    "differs from R's last dim " +
                                        std::to_string(H));
  layer.hidden = H;
  if (wType.getDimSize(0) != layer.directions ||
      rType.getDimSize(0) != layer.directions ||
      wType.getDimSize(1) != gates * H || rType.getDimSize(1) != gates * H)
    return ctx.error() << "W and R must be [" << layer.directions << ", "
                       << gates * H << ", input or hidden size] for "
                       << layer.directions << " direction(s) of hidden size "
                       << H;
  if (!ShapedType::isDynamic(xType.getDimSize(2)) &&
      xType.getDimSize(2) != wType.getDimSize(2))
    return ctx.error() << "X's input size " << xType.getDimSize(2)
                       << " differs from W's " << wType.getDimSize(2);
  FailureOr<SmallVector<Activation>> acts =
      readActivations(ctx, cell, layer.directions);
  if (failed(acts))
    return failure();
  layer.activations = std::move(*acts);

  // X as [T, B, I].
  Value seq = *x;
  if (layer.layout == 1) {
    FailureOr<Value> t = transpose(ctx, seq, {1, 0, 2});
    if (failed(t))
      return failure();
    seq = *t;
  }
  int64_t T = typeOf(seq).getDimSize(0);
  Ops o{ctx, layer.type};

  // sequence_lens as a [T, B, 1] mask of ones and zeros.
  std::optional<Value> mask;
  if (ctx.hasInput(4)) {
    FailureOr<Value> lens = ctx.input(4);
    if (failed(lens))
      return failure();
    if (typeOf(*lens).getRank() != 1)
      return ctx.error() << "sequence_lens must have rank 1";
    if (ShapedType::isDynamic(T))
      return ctx.error() << "sequence_lens needs a static sequence length";
    if (T > kMaxComputedConstant)
      return ctx.error() << "the sequence is too long for sequence_lens' "
                            "step indices";
    Ints steps(T);
    std::iota(steps.begin(), steps.end(), 0);
    Type lensType = typeOf(*lens).getElementType();
    Value index = ctx.importer.materialize(
        intsAttr(ctx.builder().getContext(), steps, {T, 1}, lensType),
        ctx.loc);
    FailureOr<Value> live = ctx.create<CompareOp>("lt", index, *lens);
    if (failed(live))
      return failure();
    FailureOr<Value> m = ctx.create<SelectOp>(*live, o.c(1.0), o.c(0.0));
    if (failed(m))
      return failure();
    mask = reshape(ctx, *m, {T, typeOf(*m).getDimSize(1), 1});
  }

  std::optional<Value> bias;
  if (ctx.hasInput(3)) {
    FailureOr<Value> bIn = ctx.input(3);
    if (failed(bIn))
      return failure();
    if (!typeOf(*bIn).hasStaticShape() || typeOf(*bIn).getRank() != 2 ||
        typeOf(*bIn).getDimSize(0) != layer.directions ||
        typeOf(*bIn).getDimSize(1) != 2 * gates * H)
      return ctx.error() << "B must be [" << layer.directions << ", "
                         << 2 * gates * H << "]";
    bias = *bIn;
  }
  std::optional<Value> peepholes;
  if (cell == Cell::LSTM && ctx.hasInput(7)) {
    FailureOr<Value> pIn = ctx.input(7);
    if (failed(pIn))
      return failure();
    if (!typeOf(*pIn).hasStaticShape() || typeOf(*pIn).getRank() != 2 ||
        typeOf(*pIn).getDimSize(0) != layer.directions ||
        typeOf(*pIn).getDimSize(1) != 3 * H)
      return ctx.error() << "P must be [" << layer.directions << ", " << 3 * H
                         << "]";
    peepholes = *pIn;
  }

  SmallVector<Value> ys, finalH, finalC;
  for (int64_t d = 0; d < layer.directions; ++d) {
    StepOperands ops;
    FailureOr<Value> wd = direction(ctx, *w, d), rd = direction(ctx, *r, d);
    if (failed(wd) || failed(rd) || failed(wd = transpose(ctx, *wd, {1, 0})) ||
        failed(rd = transpose(ctx, *rd, {1, 0})))
      return failure();
    ops.rT = *rd;
    FailureOr<Value> projected = project(ctx, seq, *wd);
    if (failed(projected))
      return failure();
    if (bias) {
      FailureOr<Value> bd = direction(ctx, *bias, d);
      if (failed(bd))
        return failure();
      FailureOr<Value> wb = ctx.create<SliceOp>(*bd, Ints{0}, Ints{gates * H},
                                                Ints{1});
      // GRU's h-gate recurrent bias stays inside the reset with
      // linear_before_reset: only z's and r's join the projection.
      int64_t joined = cell == Cell::GRU && layer.linearBeforeReset
                           ? 2 * H
                           : gates * H;
      FailureOr<Value> rb = ctx.create<SliceOp>(
          *bd, Ints{gates * H}, Ints{gates * H + joined}, Ints{1});
      if (failed(wb) || failed(rb))
        return failure();
      Value rbFull = *rb;
      if (joined != gates * H) {
        Value zeros = ctx.importer.materialize(
            DenseElementsAttr::get(
                RankedTensorType::get({gates * H - joined}, layer.type),
                FloatAttr::get(layer.type, 0.0)),
            ctx.loc);
        FailureOr<Value> padded = ctx.create<ConcatOp>(
            ValueRange{*rb, zeros}, static_cast<uint64_t>(0));
        FailureOr<Value> rbh = ctx.create<SliceOp>(
            *bd, Ints{gates * H + 2 * H}, Ints{2 * gates * H}, Ints{1});
        if (failed(padded) || failed(rbh))
          return failure();
        rbFull = *padded;
        ops.resetBias = *rbh;
      }
      FailureOr<Value> sum = o.add(*wb, rbFull);
      if (failed(sum) || failed(projected = o.add(*projected, *sum)))
        return failure();
    }
    if (cell == Cell::GRU && layer.linearBeforeReset && !ops.resetBias)
      ops.resetBias = ctx.importer.materialize(
          DenseElementsAttr::get(RankedTensorType::get({H}, layer.type),
                                 FloatAttr::get(layer.type, 0.0)),
          ctx.loc);
    ops.projected = *projected;
    ops.mask = mask;
    if (peepholes) {
      FailureOr<Value> pd = direction(ctx, *peepholes, d);
      if (failed(pd))
        return failure();
      ops.peepholes = *pd;
    }
    FailureOr<Value> h0 = initialState(ctx, layer, 5, d, seq);
    if (failed(h0))
      return failure();
    ops.init.push_back(*h0);
    if (cell == Cell::LSTM) {
      FailureOr<Value> c0 = initialState(ctx, layer, 6, d, seq);
      if (failed(c0))
        return failure();
      ops.init.push_back(*c0);
    }
    FailureOr<func::FuncOp> step = buildStep(ctx, layer, d, ops);
    if (failed(step))
      return failure();

    SmallVector<Value> consts{ops.rT};
    if (ops.peepholes)
      consts.push_back(*ops.peepholes);
    if (ops.resetBias)
      consts.push_back(*ops.resetBias);
    SmallVector<Value> xs{ops.projected};
    if (ops.mask)
      xs.push_back(*ops.mask);
    // The carries keep their types; the step output is stacked along T.
    SmallVector<Type> resultTypes(step->getResultTypes().drop_back());
    Ints stacked{T};
    llvm::append_range(stacked, typeOf(ops.init[0]).getShape());
    resultTypes.push_back(RankedTensorType::get(stacked, layer.type));
    OpBuilder &b = ctx.builder();
    bool reverse = layer.reverse || d == 1;
    auto scan = ScanOp::create(b, ctx.loc, resultTypes,
                               FlatSymbolRefAttr::get(*step), consts, ops.init,
                               xs, IntegerAttr(), b.getBoolAttr(reverse),
                               b.getI64IntegerAttr(1), IntegerAttr());
    if (failed(verify(scan)))
      return ctx.error() << "the recurrence does not verify (see above)";
    finalH.push_back(scan.getResult(0));
    if (cell == Cell::LSTM)
      finalC.push_back(scan.getResult(1));
    ys.push_back(scan.getResults().back());
  }

  // Y: [T, directions, B, H] (layout 1: [B, T, directions, H]); Y_h and
  // Y_c: [directions, B, H] (layout 1: [B, directions, H]).
  auto stackDirections = [&](ArrayRef<Value> parts, int64_t axis,
                             ArrayRef<int64_t> perm) -> FailureOr<Value> {
    SmallVector<Value> lifted;
    for (Value v : parts) {
      Ints shape(typeOf(v).getShape());
      shape.insert(shape.begin() + axis, 1);
      lifted.push_back(reshape(ctx, v, shape));
    }
    FailureOr<Value> y =
        lifted.size() == 1
            ? FailureOr<Value>(lifted[0])
            : ctx.create<ConcatOp>(ValueRange(lifted),
                                   static_cast<uint64_t>(axis));
    if (failed(y) || layer.layout == 0)
      return y;
    return transpose(ctx, *y, perm);
  };
  if (ctx.hasOutput(0)) {
    FailureOr<Value> y = stackDirections(ys, 1, {2, 0, 1, 3});
    if (failed(y))
      return failure();
    ctx.setOutput(0, *y);
  }
  if (ctx.hasOutput(1)) {
    FailureOr<Value> y = stackDirections(finalH, 0, {1, 0, 2});
    if (failed(y))
      return failure();
    ctx.setOutput(1, *y);
  }
  if (cell == Cell::LSTM && ctx.hasOutput(2)) {
    FailureOr<Value> y = stackDirections(finalC, 0, {1, 0, 2});
    if (failed(y))
      return failure();
    ctx.setOutput(2, *y);
  }
  return success();
}

} // namespace

void addRecurrentOps(llvm::StringMap<OpConverter> &t) {
  t["RNN"] = [](NodeContext &c) { return convertRecurrent(c, Cell::RNN); };
  t["GRU"] = [](NodeContext &c) { return convertRecurrent(c, Cell::GRU); };
  t["LSTM"] = [](NodeContext &c) { return convertRecurrent(c, Cell::LSTM); };
}

} // namespace mlir::rlx::onnx_import

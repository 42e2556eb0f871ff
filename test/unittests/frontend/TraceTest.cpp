//===- TraceTest.cpp - Tracing, printed MLIR and trace-time errors --------===//

#include "FrontendTestUtil.h"

using namespace rlx;
using rlx::test::errorOf;

namespace {

TEST(Trace, PrintsSignatureParamsAndOps) {
  Func f("forward", [](Scope &s) {
    Tensor x = s.input("x", {dyn, 4});
    Tensor h = relu(linear(s, "fc", x, 3));
    return softmax(h).named("probs");
  });
  std::string text = f.to_mlir();
  EXPECT_NE(text.find("func.func @forward(%arg0: tensor<?x4xf32> {rlx.name = "
                      "\"x\"}) -> (tensor<?x3xf32> {rlx.name = \"probs\"})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rlx.param \"fc.weight\" : tensor<4x3xf32>"),
            std::string::npos);
  EXPECT_NE(text.find("rlx.matmul"), std::string::npos);
  EXPECT_NE(text.find("rlx.softmax %"), std::string::npos);
  EXPECT_EQ(f.param_names(),
            (std::vector<std::string>{"fc.weight", "fc.bias"}));
  EXPECT_EQ(f.input_names(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(f.output_names(), (std::vector<std::string>{"probs"}));
}

TEST(Trace, MultiOutputAndDefaultNames) {
  Func f("two", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {3});
    return {exp(x), sum(x)};
  });
  EXPECT_EQ(f.output_names(), (std::vector<std::string>{"out0", "out1"}));
  EXPECT_EQ(f.outputs()[1].type.str(), "f32[]");
}

TEST(Trace, ShapeInference) {
  Func f("shapes", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {dyn, 6});
    Tensor y = s.input("y", {2, 3, 4});
    Tensor ids = s.input("ids", {5}, i32);
    Tensor t = s.param("table", {10, 7});
    std::vector<Tensor> r;
    r.push_back(reshape(x, {dyn, 2, 3}));             // ?x2x3
    r.push_back(transpose(y));                        // 4x3x2
    r.push_back(sum(y, {0, -1}, true));               // 1x3x1
    r.push_back(mean(y, {1}));                        // 2x4
    r.push_back(slice(y, {{}, {1, end}, {0, 4, 2}})); // 2x2x2
    r.push_back(concat({y, y}, 1));                   // 2x6x4
    r.push_back(stack({x, x}, 0));                    // 2x?x6
    r.push_back(gather(t, ids, 0));                   // 5x7
    r.push_back(matmul(y, s.param("w", {4, 5})));     // 2x3x5
    r.push_back(x + s.param("b", {6}));               // ?x6
    r.push_back(take(y, 1, -1));                      // 2x4
    r.push_back(cast(x > 0.0, f64));                  // ?x6 f64
    r.push_back(pad(y, {0, 1, 0}, {0, 0, 2}));        // 2x4x6
    r.push_back(one_hot(ids, 3));                     // 5x3
    return r;
  });
  std::vector<std::string> want = {
      "f32[?,2,3]", "f32[4,3,2]", "f32[1,3,1]", "f32[2,4]",   "f32[2,2,2]",
      "f32[2,6,4]", "f32[2,?,6]", "f32[5,7]",   "f32[2,3,5]", "f32[?,6]",
      "f32[2,4]",   "f64[?,6]",   "f32[2,4,6]", "f32[5,3]"};
  ASSERT_EQ(f.outputs().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(f.outputs()[i].type.str(), want[i]) << "output " << i;
}

TEST(Trace, ShapeErrorsNameOpShapesAndLine) {
  int line = 0;
  std::string message = errorOf([&] {
    Func f("bad", [&](Scope &s) {
      Tensor x = s.input("x", {dyn, 784});
      Tensor w = s.param("w", {700, 10});
      line = __LINE__ + 1;
      return matmul(x, w);
    });
  });
  EXPECT_NE(message.find("rlx::matmul: 'rlx.matmul' op expects contracting "
                         "dims to match: lhs [?,784] has K = 784, rhs "
                         "[700,10] has K = 700"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("TraceTest.cpp:" + std::to_string(line)),
            std::string::npos)
      << message;
}

TEST(Trace, EveryErrorPath) {
  auto traced = [](auto body) { return errorOf([&] { Func f("e", body); }); };
  // An op's error is its shape rule's or verifier's, at the caller's line.
  int at = 0;
  auto check = [&](const std::string &text, auto body) {
    std::string message = traced(body);
    EXPECT_NE(message.find(text), std::string::npos) << message;
    EXPECT_NE(message.find("(at TraceTest.cpp:" + std::to_string(at) + ")"),
              std::string::npos)
        << message;
  };
  check("expects operand shapes that broadcast, got [3] and [4]",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return add(s.input("a", {3}), s.input("b", {4}));
        });
  check("requires the same element type for all operands", [&](Scope &s) {
    at = __LINE__ + 1;
    return add(s.input("a", {3}), s.input("b", {3}, f64));
  });
  check("operand #0 must be ranked tensor of f16, bf16, f32 or f64 values, "
        "but got "
        "'tensor<3xi32>'",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return exp(s.input("a", {3}, i32));
        });
  check("expects axes in [0, 1), got 1", [&](Scope &s) {
    at = __LINE__ + 1;
    return sum(s.input("a", {3}), {1});
  });
  check("expects the same number of elements, got [3] (3) and [2] (2)",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return reshape(s.input("a", {3}), {2});
        });
  check("expects a dynamic result dim for a dynamic operand, got [3,2]",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return reshape(s.input("a", {dyn, 3}), {3, 2});
        });
  check("expects a permutation of", [&](Scope &s) {
    at = __LINE__ + 1;
    return transpose(s.input("a", {3, 2}), {0, 0});
  });
  check("empty range", [&](Scope &s) {
    at = __LINE__ + 1;
    return slice(s.input("a", {3}), {{2, 1}});
  });
  check("expects input 1 [3,3] to match input 0 [3,2] on dim 1", [&](Scope &s) {
    at = __LINE__ + 1;
    return concat({s.input("a", {3, 2}), s.input("b", {3, 3})}, 0);
  });
  check("'rlx.gather' op operand #1 must be ranked tensor of 32-bit signless "
        "integer or 64-bit signless integer values",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return gather(s.input("a", {3}), s.input("i", {2}), 0);
        });
  check("'rlx.select' op operand #0 must be ranked tensor of 1-bit signless "
        "integer values",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return where(s.input("c", {3}), s.input("a", {3}), s.input("b", {3}));
        });
  check("expects approximate = \"tanh\" or \"erf\", got \"foo\"",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return gelu(s.input("c", {3}), "foo");
        });
  check("expects operand dim 0 ([3]) to be 1 or equal result dim 1 ([4])",
        [&](Scope &s) {
          at = __LINE__ + 1;
          return broadcast_to(s.input("c", {3}), {2, 4});
        });
  check("expects non-negative padding on dim 0", [&](Scope &s) {
    at = __LINE__ + 1;
    return pad(s.input("c", {3}), {-1}, {0});
  });
  check("declared as f32[3] and again as f32[4]", [&](Scope &s) {
    Tensor x = s.input("x", {3});
    s.param("w", {3});
    at = __LINE__ + 1;
    return x * s.param("w", {4});
  });
  check("declared twice", [&](Scope &s) {
    s.input("x", {3});
    at = __LINE__ + 1;
    return s.input("x", {3});
  });
  check("static shape", [&](Scope &s) {
    at = __LINE__ + 1;
    return s.param("w", {dyn});
  });
  check("3 values for shape [2,2]", [&](Scope &s) {
    at = __LINE__ + 1;
    return s.constant({1, 2, 3}, {2, 2});
  });
  EXPECT_NE(traced([](Scope &s) -> std::vector<Tensor> {
              return {};
            }).find("returns nothing"),
            std::string::npos);
  EXPECT_NE(traced([](Scope &s) -> std::vector<Tensor> {
              Tensor x = s.input("x", {3});
              return {x.named("y"), exp(x).named("y")};
            }).find("two outputs named 'y'"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              Func f("bad name", [](Scope &s) { return s.input("x", {1}); });
            }).find("may hold only"),
            std::string::npos);
  // A tensor of one trace used in another.
  Tensor stray;
  Func first("first", [&](Scope &s) {
    stray = s.input("x", {3});
    return stray;
  });
  EXPECT_NE(traced([&](Scope &s) {
              return s.input("y", {3}) + stray;
            }).find("a tensor of a finished trace"),
            std::string::npos);
  EXPECT_NE(traced([&](Scope &s) {
              return exp(stray);
            }).find("a tensor of a finished trace"),
            std::string::npos);
  // Two live traces (one nested in the other) cannot mix values either.
  EXPECT_NE(traced([&](Scope &outer) {
              Tensor x = outer.input("x", {3});
              Func inner("inner",
                         [&](Scope &s) { return s.input("y", {3}) + x; });
              return x;
            }).find("operands come from different traces"),
            std::string::npos);
}

TEST(Trace, MethodsMatchFreeFunctions) {
  Func f("methods", [](Scope &s) -> std::vector<Tensor> {
    Tensor x = s.input("x", {2, 3});
    Tensor w = s.param("w", {2, 3});
    return {x.matmul(w.T()).softmax().named("a"),
            x.square().sum({1}, true).sqrt().named("b"),
            x.reshape({3, 2}).transpose().mean().named("c"),
            x.cast(f64).tanh().max({0}).named("d")};
  });
  EXPECT_EQ(f.outputs()[0].type.str(), "f32[2,2]");
  EXPECT_EQ(f.outputs()[1].type.str(), "f32[2,1]");
  EXPECT_EQ(f.outputs()[2].type.str(), "f32[]");
  EXPECT_EQ(f.outputs()[3].type.str(), "f64[3]");
  int line = 0;
  std::string message = errorOf([&] {
    Func g("bad", [&](Scope &s) {
      line = __LINE__ + 1;
      return s.input("x", {3}).T();
    });
  });
  EXPECT_NE(message.find("rlx::T: needs rank 2 or more, got f32[3] (at "
                         "TraceTest.cpp:" +
                         std::to_string(line) + ")"),
            std::string::npos)
      << message;
}

TEST(Trace, CallsMergeParamsAndRenameClashes) {
  Func inner("block", [](Scope &s) {
    return tanh(s.input("h", {4}) * s.param("scale", {4}));
  });
  Func other("block", [](Scope &s) { return exp(s.input("h", {4})); });
  Func outer("model", [&](Scope &s) {
    Tensor x = s.input("x", {4});
    Tensor a = inner(s, {x})[0];
    Tensor b = other(s, {a})[0];
    return sum(b * s.param("w", {4}));
  });
  EXPECT_EQ(outer.param_names(), (std::vector<std::string>{"scale", "w"}));
  std::string text = outer.to_mlir();
  EXPECT_NE(text.find("func.func private @block("), std::string::npos) << text;
  EXPECT_NE(text.find("func.func private @block_1("), std::string::npos)
      << text;
  EXPECT_NE(text.find("call @block("), std::string::npos);
  EXPECT_NE(text.find("call @block_1("), std::string::npos);
  std::string message = errorOf([&] {
    Func bad("bad", [&](Scope &s) { return inner(s, {s.input("x", {5})})[0]; });
  });
  EXPECT_NE(message.find("argument 'h' is f32[5], expected f32[4]"),
            std::string::npos)
      << message;
}

} // namespace

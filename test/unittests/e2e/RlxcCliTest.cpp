//===- RlxcCliTest.cpp - rlxc's errors as a command-line tool -------------===//
//
/// \file
/// Bad models and bad command lines: rlxc exits non-zero, says
/// `file:line:col: error: <reason>` (or names the file it cannot read),
/// leaves no output file behind and never overwrites its input.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

using namespace rlx::e2e;

namespace {

class RlxcCli : public ::testing::Test {
protected:
  void SetUp() override { dir = makeScratchSubdir("cli"); }

  /// Writes `text` to dir/name and compiles it to dir/out.so.
  ProcessResult compile(const std::string &name, const std::string &text,
                        const std::vector<std::string> &flags = {}) {
    input = dir + "/" + name;
    output = dir + "/out.so";
    writeFile(input, text);
    std::vector<std::string> argv = {RLXC_PATH, input, "-o", output};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return runProcess(argv);
  }

  /// `input:line:col: error:` where `line` holds `marker` and `col` is where
  /// the marker starts (1-based); the op's location is its name.
  std::string locationOf(const std::string &text, const std::string &marker) {
    size_t at = text.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    size_t line = 1, lineStart = 0;
    for (size_t i = 0; i < at; ++i)
      if (text[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    return input + ":" + std::to_string(line) + ":" +
           std::to_string(at - lineStart + 1) + ": error: ";
  }

  void expectFailure(const ProcessResult &p, const std::string &location,
                     const std::string &reason) {
    EXPECT_EQ(p.signal, 0) << "rlxc died of a signal:\n" << p.err;
    EXPECT_NE(p.exitCode, 0) << p.err;
    EXPECT_NE(p.err.find(location), std::string::npos)
        << "expected '" << location << "' in:\n"
        << p.err;
    EXPECT_NE(p.err.find(reason), std::string::npos)
        << "expected '" << reason << "' in:\n"
        << p.err;
    EXPECT_FALSE(fileExists(output)) << "a failed compile left " << output;
  }

  std::string dir, input, output;
};

/// SPIR-V's GLSL.std.450 has no 64-bit exp: Vulkan refuses it at the op.
TEST_F(RlxcCli, VulkanRefusesF64Exp) {
  std::string text = R"(func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = rlx.exp %x : tensor<4xf64>
  return %y : tensor<4xf64>
}
)";
  ProcessResult p = compile("exp64.mlir", text, {"--target=vulkan"});
  expectFailure(p, locationOf(text, "rlx.exp"),
                "vulkan: math.exp on f64 has no SPIR-V lowering");
}

TEST_F(RlxcCli, UnknownTargetIsRefused) {
  ProcessResult p = compile("t.mlir", "func.func @f() { return }\n",
                            {"--target=metal"});
  EXPECT_NE(p.exitCode, 0);
  EXPECT_EQ(p.signal, 0);
  EXPECT_NE(p.err.find("metal"), std::string::npos) << p.err;
  EXPECT_FALSE(fileExists(output));
}

TEST_F(RlxcCli, ValidModuleCompiles) {
  ProcessResult p = compile("ok.mlir", R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.neg %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)");
  EXPECT_EQ(p.exitCode, 0) << p.err;
  EXPECT_TRUE(fileExists(output));
}

// The bad op is in the second function, so the line is not the first.
TEST_F(RlxcCli, MatmulContractingDimMismatch) {
  std::string text = R"(
func.func @fine(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.neg %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @bad(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %r = rlx.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}
)";
  ProcessResult p = compile("matmul_k.mlir", text);
  expectFailure(p, locationOf(text, "rlx.matmul"),
                "expects contracting dims to match: lhs [2,3] has K = 3, rhs "
                "[4,5] has K = 4");
}

TEST_F(RlxcCli, IncompatibleBroadcast) {
  std::string text = R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %r = rlx.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)";
  ProcessResult p = compile("broadcast.mlir", text);
  expectFailure(p, locationOf(text, "rlx.add"),
                "expects operand shapes that broadcast, got [2,3] and [4]");
}

TEST_F(RlxcCli, BadReductionAxis) {
  std::string text = R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = rlx.sum %a {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)";
  ProcessResult p = compile("axis.mlir", text);
  expectFailure(p, locationOf(text, "rlx.sum"), "expects axes in [0, 2), got 2");
}

TEST_F(RlxcCli, SyntaxError) {
  // The type on line 4 lacks its '>': the error points just past `f32`.
  std::string text = "\nfunc.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
                     "  %r = rlx.neg %a : tensor<2x3xf32>\n"
                     "  return %r : tensor<2x3xf32\n"
                     "}\n";
  ProcessResult p = compile("syntax.mlir", text);
  expectFailure(p, input + ":4:29: error: ", "expected '>'");
}

TEST_F(RlxcCli, UnknownOp) {
  std::string text = R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.frobnicate %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)";
  ProcessResult p = compile("unknown.mlir", text);
  expectFailure(p, locationOf(text, "rlx.frobnicate"), "rlx.frobnicate");
}

TEST_F(RlxcCli, MissingInputFile) {
  input = dir + "/nothing.mlir";
  output = dir + "/out.so";
  ProcessResult p = runProcess({RLXC_PATH, input, "-o", output});
  EXPECT_EQ(p.signal, 0);
  EXPECT_NE(p.exitCode, 0);
  EXPECT_NE(p.err.find("cannot read '" + input + "'"), std::string::npos)
      << p.err;
  EXPECT_FALSE(fileExists(output));
}

TEST_F(RlxcCli, MissingOutputDirectory) {
  ProcessResult p = compile("ok.mlir", R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.neg %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)");
  ASSERT_EQ(p.exitCode, 0) << p.err;
  std::string badOutput = dir + "/no/such/dir/out.so";
  p = runProcess({RLXC_PATH, input, "-o", badOutput});
  EXPECT_EQ(p.signal, 0);
  EXPECT_NE(p.exitCode, 0);
  EXPECT_NE(p.err.find(badOutput), std::string::npos) << p.err;
  EXPECT_FALSE(fileExists(badOutput));
}

TEST_F(RlxcCli, RefusesToOverwriteInput) {
  const std::string text = R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.neg %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)";
  input = dir + "/m.mlir";
  writeFile(input, text);
  // The same path, and the same file by another spelling.
  for (const std::string &out :
       {input, dir + "/./m.mlir", dir + "/../" +
                                      dir.substr(dir.rfind('/') + 1) +
                                      "/m.mlir"}) {
    SCOPED_TRACE("-o " + out);
    ProcessResult p = runProcess({RLXC_PATH, input, "-o", out});
    EXPECT_EQ(p.signal, 0);
    EXPECT_NE(p.exitCode, 0);
    EXPECT_NE(p.err.find("would overwrite the input"), std::string::npos)
        << p.err;
    EXPECT_EQ(readFile(input), text) << "the input changed";
  }
}

// A compile that fails before code generation leaves an output file that
// already existed either untouched or gone, never rewritten.
TEST_F(RlxcCli, FailedCompileKeepsExistingOutputIntact) {
  output = dir + "/out.so";
  writeFile(output, "previous contents");
  input = dir + "/bad.mlir";
  writeFile(input, R"(
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = rlx.frobnicate %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)");
  ProcessResult p = runProcess({RLXC_PATH, input, "-o", output});
  EXPECT_NE(p.exitCode, 0);
  if (fileExists(output))
    EXPECT_EQ(readFile(output), "previous contents");
}

} // namespace

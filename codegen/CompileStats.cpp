//===- CompileStats.cpp - What one compilation did ------------------------===//

#include "codegen/CompileStats.h"
#include "dialects/RLX/IR/DotOperandLayout.h"
#include "rlx/abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

namespace mlir::rlx {

namespace {

/// A matmul, or a product by a prepacked weight (rlx-pack-dot-operands).
bool isProduct(linalg::LinalgOp op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
         op->hasAttr(dot_layout::kPackedRhsAttrName);
}

std::string kernelKind(linalg::LinalgOp op) {
  if (isProduct(op))
    return "matmul";
  if (isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return "convolution";
  if (isa<linalg::FillOp>(op))
    return "fill";
  if (isa<linalg::TransposeOp>(op))
    return "transpose";
  if (isa<linalg::CopyOp>(op))
    return "copy";
  if (op.getNumReductionLoops() > 0)
    return "reduction";
  return "elementwise";
}

unsigned fusedOps(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op))
    return 1;
  unsigned count = 0;
  for (Operation &inner : op->getRegion(0).front())
    if (!isa<linalg::YieldOp, linalg::IndexOp>(inner) &&
        inner.getNumResults() > 0 && !inner.hasTrait<OpTrait::ConstantLike>())
      ++count;
  return std::max(count, 1u);
}

} // namespace

void CompileStats::collectKernels(ModuleOp module) {
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = op->getParentOfType<func::FuncOp>();
    std::string name = func ? func.getName().str() : "?";
    // A loop over row tiles of a product with its fill and epilogue
    // (rlx-cpu-fuse-matmul-epilogues) is one loop nest: the product and
    // what its epilogue fuses, the fill not counted.
    if (isa<scf::ForOp>(op) && op->hasAttr("rlx.parallel")) {
      unsigned ops = 0;
      bool hasMatmul = false;
      op->walk([&](linalg::LinalgOp inner) {
        hasMatmul |= isProduct(inner);
        if (!isa<linalg::FillOp>(inner))
          ops += fusedOps(inner);
      });
      if (hasMatmul) {
        kernels.push_back({name, "matmul + epilogue, row tiles", ops});
        return WalkResult::skip();
      }
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      kernels.push_back({name, kernelKind(linalgOp), fusedOps(linalgOp)});
    return WalkResult::advance();
  });
}

void CompileStats::collectWorkspaces(ModuleOp module) {
  auto manifest = module->getAttrOfType<StringAttr>("rlx.manifest");
  if (!manifest)
    return;
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(manifest.getValue());
  if (!json) {
    llvm::consumeError(json.takeError());
    return;
  }
  const llvm::json::Array *entries =
      json->getAsObject()->getArray(RLX_MANIFEST_ENTRY_POINTS);
  if (!entries)
    return;
  for (const llvm::json::Value &entry : *entries) {
    const llvm::json::Object *object = entry.getAsObject();
    std::string name =
        object->getString(RLX_MANIFEST_ENTRY_NAME).value_or("").str();
    int64_t peak =
        object->getInteger(RLX_MANIFEST_ENTRY_WORKSPACE_BYTES).value_or(0);
    int64_t bound =
        object->getInteger(RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES)
            .value_or(peak);
    workspaces.push_back({name, peak, bound});
  }
}

void CompileStats::print(llvm::raw_ostream &os) const {
  os << "rlxc stats\n  time per phase:\n";
  double total = 0;
  for (const PhaseTime &phase : phases) {
    os << llvm::format("    %-10s %8.3f s\n", phase.phase.c_str(),
                       phase.seconds);
    total += phase.seconds;
  }
  os << llvm::format("    %-10s %8.3f s\n", "total", total);
  os << "  kernels (loop nests after fusion; ops = operations fused into "
        "the kernel body):\n";
  std::string current;
  for (const Kernel &kernel : kernels) {
    if (kernel.function != current) {
      current = kernel.function;
      unsigned count = 0;
      for (const Kernel &k : kernels)
        count += k.function == current;
      llvm::StringRef name(current);
      name.consume_front(RLX_IMPL_SYMBOL_PREFIX);
      os << "    " << name << ": " << count << " kernels\n";
    }
    os << "      " << kernel.kind << " (" << kernel.fusedOps << " ops)\n";
  }
  os << "  workspace (statically shaped temporaries, one arena per entry "
        "point):\n";
  for (const Workspace &w : workspaces)
    os << llvm::format("    %-24s %lld bytes, liveness lower bound %lld "
                       "bytes (%.2fx)\n",
                       w.entryPoint.c_str(), (long long)w.peakBytes,
                       (long long)w.lowerBoundBytes,
                       w.lowerBoundBytes > 0
                           ? double(w.peakBytes) / double(w.lowerBoundBytes)
                           : 1.0);
}

} // namespace mlir::rlx

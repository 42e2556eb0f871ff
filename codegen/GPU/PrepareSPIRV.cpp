//===- PrepareSPIRV.cpp - Outlined kernels ready for SPIR-V ---------------===//
///
/// \file
/// `convert-gpu-to-spirv` needs a target environment and each kernel's
/// workgroup size as attributes, and GLSL.std.450 has no erf and no 64-bit
/// exp/log/tanh/pow. This pass attaches the environment (what Vulkan 1.2
/// devices such as lavapipe offer; spirv-update-vce later keeps only what a
/// module uses, and the runtime checks that against the device), sets the
/// workgroup size from the launch's constant block size, rewrites f32 erf as
/// a polynomial (convert-math-to-spirv then lowers the rest to GLSL ops),
/// and refuses, at the op's location, what no Vulkan device can run.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUPREPARESPIRV
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr const char *kTargetEnv =
    "#spirv.target_env<#spirv.vce<v1.3, [Shader, Int64, Int16, Int8, "
    "Float64, Float16, StorageBuffer8BitAccess, StorageBuffer16BitAccess], "
    "[SPV_KHR_storage_buffer_storage_class, SPV_KHR_8bit_storage, "
    "SPV_KHR_16bit_storage]>, api=Vulkan, #spirv.resource_limits<>>";

/// Math ops GLSL.std.450 implements for 64-bit floats too.
bool hasF64Lowering(Operation *op) {
  return isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp, math::AbsIOp>(op);
}

LogicalResult checkSupported(gpu::GPUModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes())) {
      if (getElementTypeOrSelf(type).isBF16()) {
        op->emitError("vulkan: bf16 has no SPIR-V type; compile for cpu, "
                      "cuda or rocm, or cast to f32");
        return WalkResult::interrupt();
      }
    }
    if (op->getDialect() && op->getDialect()->getNamespace() == "math" &&
        !hasF64Lowering(op) && op->getNumResults() == 1 &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF64()) {
      op->emitError("vulkan: ")
          << op->getName()
          << " on f64 has no SPIR-V lowering (GLSL.std.450 transcendental "
             "functions are 16/32-bit); compute it in f32 or use cpu, cuda "
             "or rocm";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Workgroup attributions become `memref.alloc`s in workgroup memory at
/// the kernel's start in SPIR-V's Workgroup storage class, the form the
/// SPIR-V conversion turns into Workgroup variables (in MLIR 22 it crashes
/// on a kernel with attributions and maps no gpu address space).
void workgroupAttributionsToAllocs(gpu::GPUFuncOp fn) {
  unsigned count = fn.getNumWorkgroupAttributions();
  if (count == 0)
    return;
  Block &entry = fn.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  unsigned first = fn.getFunctionType().getNumInputs();
  auto storage = spirv::StorageClassAttr::get(fn.getContext(),
                                              spirv::StorageClass::Workgroup);
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument arg = entry.getArgument(first + i);
    auto type = cast<MemRefType>(arg.getType());
    auto alloc = memref::AllocOp::create(
        b, fn.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout(), storage));
    arg.replaceAllUsesWith(alloc.getResult());
  }
  for (unsigned i = count; i-- > 0;)
    entry.eraseArgument(first + i);
  fn->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
              b.getI64IntegerAttr(0));
}

struct RLXGPUPrepareSPIRVPass
    : mlir::rlx::impl::RLXGPUPrepareSPIRVBase<RLXGPUPrepareSPIRVPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto env = dyn_cast_or_null<spirv::TargetEnvAttr>(
        parseAttribute(kTargetEnv, context));
    if (!env) {
      getOperation().emitError("bad SPIR-V target environment");
      return signalPassFailure();
    }
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (failed(checkSupported(module)))
        return signalPassFailure();
      module->setAttr(spirv::getTargetEnvAttrName(), env);
      for (auto fn : module.getOps<gpu::GPUFuncOp>()) {
        if (!fn.isKernel())
          continue;
        std::optional<ArrayRef<int32_t>> block = fn.getKnownBlockSize();
        if (!block || block->size() != 3) {
          fn.emitError("vulkan: kernel without a constant block size");
          return signalPassFailure();
        }
        workgroupAttributionsToAllocs(fn);
        fn->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(context, *block));
      }
      RewritePatternSet polynomials(context);
      populateMathPolynomialApproximationPatterns(
          polynomials, [](StringRef name) {
            name.consume_front("math.");
            return name == "erf";
          });
      if (failed(applyPatternsGreedily(module, std::move(polynomials))))
        return signalPassFailure();
    }
  }
};

} // namespace

//===- Compiler.cpp - Phases and their pipelines --------------------------===//

#include "codegen/Compiler.h"

#include "codegen/ABI/CPUTarget.h"
#include "codegen/ABI/Passes.h"
#include "codegen/CPU/Passes.h"
#include "codegen/Common/Passes.h"
#include "codegen/GPU/Passes.h"
#include "conversion/RLXToLinalg/RLXToLinalg.h"
#include "conversion/RLXToSCF/Passes.h"
#include "conversion/TosaToRLX/Passes.h"
#include "dialects/RLX/IR/DotOperandLayout.h"
#include "dialects/RLX/IR/ExternalModels.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Passes.h"

#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRVPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <functional>
#include <iterator>
#include <string>

using namespace mlir;

namespace mlir::rlx {

llvm::StringRef compilerVersion() { return RLX_VERSION_STRING; }

/// Phase names in Phase order: parsing, --stats and the rlx-phase-*
/// pipelines all read this one table.
static constexpr const char *kPhaseNames[] = {
    "import", "transform", "simplify", "lower", "fuse", "bufferize", "codegen"};
static constexpr int kPhaseCount = static_cast<int>(Phase::Codegen) + 1;
static_assert(std::size(kPhaseNames) == kPhaseCount);

std::optional<Phase> parsePhase(llvm::StringRef name) {
  for (int p = 0; p < kPhaseCount; ++p)
    if (name == kPhaseNames[p])
      return static_cast<Phase>(p);
  return std::nullopt;
}

llvm::StringRef phaseNames() {
  static const std::string names = [] {
    std::string joined;
    for (const char *name : kPhaseNames)
      joined += (joined.empty() ? "" : ", ") + std::string(name);
    return joined;
  }();
  return names;
}

void registerCompilerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<RLXDialect>();
  registerExternalDifferentiationModels(registry);
}

/// The manifest check of codegen: the target and CPU these options build.
static RLXCheckManifestTargetOptions
checkManifestTargetOptions(const PipelineOptions &options) {
  RLXCheckManifestTargetOptions check;
  check.target = options.target;
  check.cpu = options.cpu;
  check.cpuFeatures = llvm::to_vector(options.cpuFeatures);
  return check;
}

static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The CPU the code is compiled for (failure on a name the manifest check
/// reports).
static FailureOr<CPUTarget> compiledCPU(const PipelineOptions &options) {
  std::string error;
  return resolveCPUTarget(options.cpu, llvm::to_vector(options.cpuFeatures),
                          error);
}

/// Whether the code is compiled for a CPU with `feature` ("+avx512bf16").
static bool targetHas(const PipelineOptions &options, StringRef feature) {
  FailureOr<CPUTarget> target = compiledCPU(options);
  return succeeded(target) &&
         llvm::is_contained(target->required, feature.str());
}

/// Whether rlx-cpu-dot-product-matmul has int8 (vpdpbusd) and bf16
/// (vdpbf16ps) kernels for the target CPU.
static bool targetHasDotProductInt8(const PipelineOptions &options) {
  return targetHas(options, "+avx512vnni") && targetHas(options, "+avx512bw");
}
static bool targetHasDotProductBF16(const PipelineOptions &options) {
  return targetHas(options, "+avx512bf16");
}
/// Whether it also has AMX tiles for them (tdpbf16ps, tdpbsud): the
/// runtime asks the OS for the tile state when an artifact needs it.
static bool targetHasAmxBF16(const PipelineOptions &options) {
  return targetHasDotProductBF16(options) && targetHas(options, "+amx-tile") &&
         targetHas(options, "+amx-bf16");
}
static bool targetHasAmxInt8(const PipelineOptions &options) {
  return targetHasDotProductInt8(options) && targetHas(options, "+amx-tile") &&
         targetHas(options, "+amx-int8");
}

/// The f32 matmul kernel's register tile (rows, columns), unless the
/// options give one: the C tile must stay in vector registers with room
/// for a B row and a broadcast A value. AVX-512's 32 zmm registers hold an
/// 8 x 32 tile in 16 of them. AVX2 has 16 ymm registers of 8 floats: the
/// same tile would be 32, spilled at every k (0.36-0.44x oneDNN at
/// 256-2048 on one Zen 3 core); 6 x 16 is 12 of them, with two for the B
/// row and one for the broadcast (the shape of BLIS's Haswell kernel: 12
/// FMAs per 8 loads where 4 x 16 had 8 per 6; on one Zen 3 core, matmuls
/// of 256-2048 at 0.91-1.06x oneDNN against 0.73-1.02x with 4 x 16,
/// ResNet-50's convs 0.67-1.12x against 0.60-1.03x).
static std::pair<int64_t, int64_t> matmulTile(const PipelineOptions &options) {
  bool avx512 = targetHas(options, "+avx512f");
  int64_t m = options.matmulTileM, n = options.matmulTileN;
  return {m ? m : avx512 ? 8 : 6, n ? n : avx512 ? 32 : 16};
}

/// Bytes of a prepacked f32 weight from which its product keeps the
/// whole-product schedule (K blocks of B's panels in L1, read by every row
/// tile) instead of epilogue row tiles that each stream all of B from L2:
/// 2 MiB (Zen 3), 1 MiB with AVX-512. On one Emerald Rapids core the
/// MLP 784-512-512-10 at batch 128 (a 1.5 MiB first weight) ran 0.855 ->
/// 0.796 ms (0.462 -> 0.439 on two), ResNet-50 b1 44.1 -> 42.9 ms.
static int64_t wholeProductBytes(const PipelineOptions &options) {
  return targetHas(options, "+avx512f") ? int64_t(1) << 20
                                        : dot_layout::kMinPanelledF32Bytes;
}

/// Whether the target CPU is an AMD Zen 4 or Zen 5, on which the tall
/// register tiles below lose. Zen 4 runs each 512-bit op as two 256-bit
/// halves and gains nothing from fewer passes over B; Zen 5, with whole
/// 512-bit pipes and the same 1 MiB L2 per core, still ran ResNet-50 b1
/// 1.5-2% slower with them on one core (in turns, medians of 30 calls:
/// 37.6-38.6 ms with 14-row tiles, 36.8-37.8 with 8-row ones).
static bool targetLosesOnTallTiles(const PipelineOptions &options) {
  FailureOr<CPUTarget> target = compiledCPU(options);
  return succeeded(target) &&
         (target->cpu == "znver4" || target->cpu == "znver5");
}

/// Rows of the tallest f32 register tile of the default width: its
/// accumulators plus a B row and a broadcast fill the vector registers
/// (14 x 32 in 28 of AVX-512's 32 zmm; AVX2's 6 x 16 is already its
/// tallest). A product whose row tiles each stream its B panels from L2
/// (one block of A read in place, 28 to 64 rows: ResNet-50's 49-row convs
/// at 7x7) passes over B once per tile: 14-row tiles on one Emerald
/// Rapids core, 3x3_512-512@7 1.26 -> 1.16 ms, 1x1_2048-512@7 0.54 ->
/// 0.49 ms. Not on AMD Zen 4 and Zen 5 (targetLosesOnTallTiles; Zen 4 on
/// one core, in turns: 1x1_2048-512@7 1.14 -> 0.91 ms with 8-row tiles,
/// 1x1s2_1024-2048@14 2.44-2.65 -> 1.93-1.97, ResNet-50 b1 78.6-78.9 ->
/// 76.6-76.9). 0 where the options give a tile.
static int64_t tallMatmulTileRows(const PipelineOptions &options) {
  if (options.matmulTileM || options.matmulTileN ||
      !targetHas(options, "+avx512f") || targetLosesOnTallTiles(options))
    return 0;
  return 14;
}

/// Rows per tile of a product with a fused epilogue: the least multiple of
/// the register tile's height from 8 (8, or 12 for 6-row tiles).
static int64_t matmulRowTile(const PipelineOptions &options) {
  int64_t tileM = matmulTile(options).first;
  return (8 + tileM - 1) / tileM * tileM;
}

static void buildCPUCodegen(OpPassManager &pm,
                            const PipelineOptions &options) {
  RLXCPUVectorizeMatmulOptions matmul;
  std::tie(matmul.tileM, matmul.tileN) = matmulTile(options);
  matmul.tallTileM = tallMatmulTileRows(options);
  pm.addPass(createRLXCheckManifestTarget(checkManifestTargetOptions(options)));
  pm.addPass(createRLXRuntimeChecks());
  pm.addPass(createRLXLowerDynamicExpandShapes());
  // Before the generic matmul schedule, which would widen bf16 and i8.
  RLXCPUDotProductMatmulOptions dot;
  dot.bf16 = targetHasDotProductBF16(options);
  dot.int8 = targetHasDotProductInt8(options);
  dot.amxBF16 = targetHasAmxBF16(options);
  dot.amxInt8 = targetHasAmxInt8(options);
  if (dot.bf16 || dot.int8)
    pm.addPass(createRLXCPUDotProductMatmul(dot));
  pm.addPass(createRLXCPUVectorizeMatmul(matmul));
  pm.addPass(createRLXCPULowerStridedCopies());
  pm.addPass(createRLXCPUVectorizeLoops());
  // bf16 arithmetic in f32 and every conversion as integer ops: LLVM
  // promotes a bf16 op itself, each truncation back a call of
  // `__truncsfbf2` per element without AVX512-BF16 (a mixed-precision
  // MLP step: 17.7 ms against 3.4 in f32 on one Zen 3 core). After the
  // matmul pass, whose f32 copies of bf16 inputs extend them, and the
  // loops' vectorization, whose f32 accumulators of bf16 sums truncate.
  if (!dot.bf16) {
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
    // f16 math stays: only bf16 is extended here (F16C converts f16).
    math::MathExtendToSupportedTypesOptions extend;
    extend.extraTypeStrs = {"f16"};
    pm.addPass(math::createMathExtendToSupportedTypes(extend));
  }
  // On every target: AVX512-BF16's vcvtneps2bf16 flushes f32 subnormals to
  // zero, so a cast rounded 3.1e-39 to 0 there and to its bf16 neighbour
  // elsewhere (and in ml_dtypes).
  pm.addPass(createRLXCPUExpandBF16Casts());
  pm.addPass(createRLXCPUParallelize());
  pm.addNestedPass<func::FuncOp>(createRLXMaterializeWorkspace());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  // Inlines the memref.alloca_scope the conversion wraps loop bodies in
  // (they allocate nothing); lowering SCF inside one would give it blocks.
  pm.addPass(createRLXCPUInlineAllocaScopes());
  // After the scopes are gone (an alloca would have kept them).
  pm.addPass(createRLXCPUStackLoopBuffers());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createRLXCPUThreadCount());
  pm.addPass(createRLXCPUOutlineKernels());
  pm.addPass(memref::createFoldMemRefAliasOpsPass());
  pm.addPass(createLowerAffinePass());
  // Transfers that are not lowered directly unroll into 1-D transfers: the
  // default staging buffer is an alloca inside the loop nest (the scopes
  // above are gone), and the stack grew by one per iteration until it
  // overflowed (a 1536-row matmul with a partial column tile).
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.x86Vector = true; // rlx-cpu-dot-product-matmul's vdpbf16ps
  vectorToLLVM.amx = true;       // and its AMX tiles
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // Allocations go through generic functions, which rlx-return-on-failure
  // routes to the runtime's hooks: a failed one ends the call with a status.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // bf16/f16 vectors' elements move as i16: x86 without native 16-bit
  // floats would promote them to f32 and truncate back per element.
  pm.addPass(createRLXCPUMoveHalfFloatsAsI16());
  pm.addPass(createRLXDefineCollectiveHooks());
  pm.addPass(createRLXReturnOnFailure());
  pm.addPass(createRLXStoreResultsEarly());
  pm.addPass(createRLXEmitArtifactABI());
}

bool isGPUTarget(llvm::StringRef target) {
  return target == "cuda" || target == "rocm" || target == "vulkan";
}

llvm::StringRef targetNames() { return "cpu, cuda, rocm, vulkan"; }

/// Points the link `path` at `target`, replacing whatever was there in one
/// rename, so that concurrent compiles never see it missing.
static void replaceLink(llvm::StringRef target, llvm::StringRef path) {
  llvm::SmallString<256> temporary(path);
  temporary += ".tmp-" + std::to_string(llvm::sys::Process::getProcessId());
  llvm::sys::fs::remove(temporary);
  if (!llvm::sys::fs::create_link(target, temporary))
    if (llvm::sys::fs::rename(temporary, path))
      llvm::sys::fs::remove(temporary);
}

/// ROCm's serializer wants one folder holding amdgcn/bitcode
/// (rocm-device-libs) and llvm/bin/ld.lld, which Debian installs apart: the
/// compiler makes that folder of links in the user's cache folder
/// ($XDG_CACHE_HOME/rlx, ~/.cache/rlx, else the temporary folder), so an
/// installed rlxc needs nothing from its build tree.
static std::string rocmToolkit() {
  llvm::SmallString<256> root;
  if (!llvm::sys::path::cache_directory(root))
    llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, root);
  llvm::sys::path::append(root, "rlx", "rocm-toolkit");
  llvm::SmallString<256> bitcode(root), lld(root);
  llvm::sys::path::append(bitcode, "amdgcn", "bitcode");
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(bitcode));
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(lld));
  replaceLink(RLX_ROCM_DEVICE_LIBS, bitcode);
  replaceLink(RLX_LLD_PATH, lld);
  return root.str().str();
}

/// Where the device compilers find their tools: ptxas under the CUDA
/// toolkit; for ROCm the folder of links above.
static std::string deviceToolkit(llvm::StringRef target) {
  const char *variable = target == "cuda" ? "RLX_CUDA_PATH" : "RLX_ROCM_PATH";
  if (const char *env = std::getenv(variable))
    return env;
  return target == "cuda" ? RLX_CUDA_TOOLKIT : rocmToolkit();
}

/// The chips each GPU target is compiled for unless the options name
/// others (docs/abi.md).
static const char *const kCudaChips[] = {"sm_80", "sm_90"};
static const char *const kRocmChips[] = {"gfx90a", "gfx942"};

std::string PipelineOptions::validate() const {
  if (target != "cpu" && !isGPUTarget(target))
    return "unknown target '" + target + "'; targets: " + targetNames().str();
  if (!chips.empty() && target != "cuda" && target != "rocm")
    return "chips are for the cuda and rocm targets, not " + target;
  // A check reads its finding on the host, from device memory on a GPU.
  if (debugChecks && isGPUTarget(target))
    return "debug checks are for the cpu target, not " + target;
  if (quantize != "none" && quantize != "int8")
    return "unknown quantization '" + quantize + "'; quantizations: none, int8";
  // The GPU backends have no int8 matmul kernels yet.
  if (quantize != "none" && isGPUTarget(target))
    return "int8 quantization is for the cpu target, not " + target;
  // It would quantize the backward products too: derivatives of rounded
  // values, silently approximate.
  if (quantize != "none" &&
      (!gradFunctions.empty() || !valueAndGradFunctions.empty() ||
       !perExampleGradFunctions.empty() || !checkGradFunctions.empty()))
    return "int8 quantization is for inference: compile the gradient "
           "entry points without it";
  std::string error;
  if (failed(resolveCPUTarget(cpu, llvm::to_vector(cpuFeatures), error)))
    return error;
  return "";
}

/// The chips of a cuda or rocm compile.
static std::vector<std::string> targetChips(const PipelineOptions &options) {
  if (!options.chips.empty())
    return {options.chips.begin(), options.chips.end()};
  if (options.target == "cuda")
    return {std::begin(kCudaChips), std::end(kCudaChips)};
  return {std::begin(kRocmChips), std::end(kRocmChips)};
}

/// Whether every chip of a CUDA compile has the m16n8k16 bf16/f16 mma
/// (sm_80 and later; "sm_90a" and the like count by their number).
static bool chipsHaveTensorCoreMma(const PipelineOptions &options) {
  if (options.target != "cuda")
    return false;
  for (const std::string &chip : targetChips(options)) {
    llvm::StringRef number = llvm::StringRef(chip);
    if (!number.consume_front("sm_"))
      return false;
    unsigned version = 0;
    if (number.consumeInteger(10, version) || version < 80)
      return false;
  }
  return true;
}

/// Device kernels: each loop nest a gpu.launch, outlined, lowered to the
/// target's device dialect; then the host side calls the runtime's hooks.
static void buildGPUCodegen(OpPassManager &pm,
                            const PipelineOptions &options) {
  llvm::StringRef target = options.target;
  // Threads per block: Vulkan guarantees 128 invocations per workgroup, no
  // more; CUDA and ROCm blocks of 256 keep more warps in flight.
  const int64_t blockSize = target == "vulkan" ? 128 : 256;
  pm.addPass(createRLXCheckManifestTarget(checkManifestTargetOptions(options)));
  pm.addPass(createRLXRuntimeChecks());
  pm.addPass(createRLXLowerDynamicExpandShapes());
  pm.addNestedPass<func::FuncOp>(createRLXMaterializeWorkspace());
  pm.addPass(createRLXGPUPrepareBuffers());
  RLXGPUTileMatmulOptions matmul;
  // 16 x 16 threads with 4 x 4 outputs each (64 x 64 tiles of C); 8 x 8
  // threads on Vulkan (within its 128).
  matmul.tile = blockSize >= 256 ? 16 : 8;
  matmul.outputsPerThread = 4;
  if (chipsHaveTensorCoreMma(options))
    pm.addPass(createRLXGPUTensorCoreMatmul());
  pm.addPass(createRLXGPUTileMatmul(matmul));
  RLXGPUBlockReductionsOptions reductions;
  reductions.blockSize = blockSize;
  pm.addPass(createRLXGPUBlockReductions(reductions));
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  RLXGPUMapKernelsOptions map;
  map.blockSize = blockSize;
  pm.addPass(createRLXGPUMapKernels(map));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  // Constants and index arithmetic move into the kernels, not into args.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createRLXGPUMergeModules());
  if (target == "vulkan") {
    pm.addPass(createRLXGPUPrepareSPIRV());
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertMathToSPIRVPass());
    pm.addPass(createConvertGPUToSPIRVPass());
    OpPassManager &spirvModule = pm.nest<spirv::ModuleOp>();
    spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
    spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
  } else {
    if (target == "cuda") {
      for (const std::string &chip : targetChips(options)) {
        GpuNVVMAttachTargetOptions attach;
        attach.chip = chip;
        attach.optLevel = 3;
        pm.addPass(createGpuNVVMAttachTarget(attach));
      }
    } else {
      for (const std::string &chip : targetChips(options)) {
        GpuROCDLAttachTargetOptions attach;
        attach.chip = chip;
        attach.optLevel = 3;
        pm.addPass(createGpuROCDLAttachTarget(attach));
      }
    }
    // Math as __ocml_* calls (device libs) before the GPU conversion, which
    // would otherwise leave LLVM intrinsics AMDGPU cannot select. A module
    // pass; the host has no math left by now.
    if (target == "rocm")
      pm.addPass(createConvertMathToROCDL());
    OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
    device.addPass(createSCFToControlFlowPass());
    if (target == "cuda") {
      device.addPass(createConvertGpuOpsToNVVMOps());
    } else {
      device.addPass(createConvertGpuOpsToROCDLOps());
    }
    device.addPass(createCanonicalizerPass());
    device.addPass(createReconcileUnrealizedCastsPass());
  }
  RLXGPUEmbedDeviceCodeOptions embed;
  embed.target = target.str();
  embed.toolkitPath = target == "vulkan" ? "" : deviceToolkit(target);
  embed.dumpDirectory = options.deviceCodeDirectory;
  pm.addPass(createRLXGPUEmbedDeviceCode(embed));
  // The host side: index arithmetic, views, allocations and calls.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createRLXGPUDeviceHooks());
  // Every allocation of a GPU entry point is device memory.
  RLXReturnOnFailureOptions returnOnFailure;
  returnOnFailure.hostAllocations = false;
  pm.addPass(createRLXReturnOnFailure(returnOnFailure));
  pm.addPass(createRLXStoreResultsEarly());
  pm.addPass(createRLXEmitArtifactABI());
}

void buildPhasePipeline(OpPassManager &pm, Phase phase,
                        const PipelineOptions &options) {
  switch (phase) {
  case Phase::Import:
    pm.addPass(createConvertTosaToRLX());
    break;
  case Phase::Transform: {
    pm.addPass(createRLXCheckTensorSizes());
    if (!options.gradFunctions.empty() ||
        !options.valueAndGradFunctions.empty() ||
        !options.checkGradFunctions.empty() ||
        !options.perExampleGradFunctions.empty()) {
      RLXAddGradientEntriesOptions entries;
      entries.gradFunctions.assign(options.gradFunctions.begin(),
                                   options.gradFunctions.end());
      entries.valueAndGradFunctions.assign(
          options.valueAndGradFunctions.begin(),
          options.valueAndGradFunctions.end());
      entries.checkGradFunctions.assign(options.checkGradFunctions.begin(),
                                        options.checkGradFunctions.end());
      entries.perExampleGradFunctions.assign(
          options.perExampleGradFunctions.begin(),
          options.perExampleGradFunctions.end());
      pm.addPass(createRLXAddGradientEntries(entries));
    }
    pm.addPass(createRLXAutodiff());
    break;
  }
  case Phase::Simplify:
    pm.addPass(createInlinerPass());
    addCleanup(pm);
    // After the cleanup: scan's canonicalization has merged each primal
    // loop into the loop stacking what reverse mode reads.
    pm.addPass(createRLXScanResiduals());
    // An imported NCHW model's layout changes around each convolution
    // cancel once the elementwise ops between them no longer read them.
    pm.addPass(createRLXSinkTransposes());
    // After autodiff, so backward products of 16-bit values widen too.
    pm.addPass(createRLXAccumulateInF32());
    pm.addPass(createSymbolDCEPass());
    break;
  case Phase::Lower:
    // Autodiff and vmap derive types (a Jacobian's is a product of two).
    pm.addPass(createRLXCheckTensorSizes());
    // First in this phase, so that calibration (which runs the simplified
    // module) measures the very matmuls it rewrites.
    if (options.quantize == "int8")
      pm.addPass(createRLXQuantizeInt8());
    // Loops and branches take their bodies in: the bodies' rlx ops and
    // params are then lowered and exposed with the rest.
    pm.addPass(createConvertRLXToSCF());
    pm.addPass(createSymbolDCEPass());
    // What a loop body computes from its consts alone (the transposed
    // weights of a backward step) runs once, before the loop.
    pm.addPass(createLoopInvariantCodeMotionPass());
    // What weights alone determine is computed once per binding (CPU: the
    // GPU runtimes bind device copies of user weights only), among it the
    // CPU matmul kernels' copies of their weights.
    if (!isGPUTarget(options.target)) {
      RLXPackDotOperandsOptions pack;
      pack.int8 = targetHasDotProductInt8(options);
      pack.bf16 = targetHasDotProductBF16(options);
      pack.f32PanelColumns = matmulTile(options).second;
      pack.f32 = dot_layout::isF32PanelWidth(pack.f32PanelColumns);
      pm.addPass(createRLXPackDotOperands(pack));
      pm.addPass(createRLXPrepareParams());
    }
    pm.addPass(createRLXExposeParams());
    // Checks on the rlx ops themselves, so each names its op.
    if (options.debugChecks)
      pm.addPass(createRLXInsertDebugChecks());
    // Collectives become calls of the runtime on their buffers (CPU; other
    // targets refuse them, naming the op).
    {
      RLXLowerCollectivesOptions collectives;
      collectives.target =
          isGPUTarget(options.target) ? std::string(options.target) : "cpu";
      pm.addPass(createRLXLowerCollectives(collectives));
    }
    {
      ConvertRLXToLinalgOptions toLinalg;
      toLinalg.tensorCoreProducts = chipsHaveTensorCoreMma(options);
      pm.addPass(createConvertRLXToLinalg(toLinalg));
    }
    // No CSE from here on: it would merge what remat recomputes on purpose.
    pm.addPass(createCanonicalizerPass());
    break;
  case Phase::Fuse:
    pm.addPass(createRLXFuseElementwise());
    if (!isGPUTarget(options.target)) {
      pm.addPass(createRLXCPUSplitReductions());
      pm.addPass(createRLXCPUFilterGradientRows());
      pm.addPass(createRLXCPUConvTapProducts());
      RLXCPUFuseMatmulEpiloguesOptions epilogues;
      epilogues.rowsPerTile = matmulRowTile(options);
      epilogues.tileColumns = matmulTile(options).second;
      epilogues.wholeProductBytes = wholeProductBytes(options);
      epilogues.bf16Products = targetHasDotProductBF16(options);
      pm.addPass(createRLXCPUFuseMatmulEpilogues(epilogues));
    }
    pm.addPass(createCanonicalizerPass());
    break;
  case Phase::Bufferize: {
    // Before a splat constant becomes a global holding every element.
    pm.addPass(createRLXFillSplatConstants());
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
    bufferization::OneShotBufferizePassOptions bufferize;
    bufferize.bufferizeFunctionBoundaries = true;
    bufferize.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    // A loop's carry is usually a new tensor each step (rlx.scan's body
    // computes it): the loop owns it, and the deallocation pipeline frees
    // the previous one.
    bufferize.allowReturnAllocsFromLoops = true;
    pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createRLXEnsureFreshResults());
    bufferization::BufferDeallocationPipelineOptions dealloc;
    bufferization::buildBufferDeallocationPipeline(pm, dealloc);
    pm.addPass(bufferization::createLowerDeallocationsPass());
    addCleanup(pm);
    pm.addNestedPass<func::FuncOp>(createRLXDeallocAtLastUse());
    pm.addNestedPass<func::FuncOp>(createRLXPlanWorkspace());
    RLXBuildManifestOptions manifest;
    manifest.target = options.target;
    manifest.cpu = options.cpu;
    manifest.cpuFeatures = llvm::to_vector(options.cpuFeatures);
    pm.addPass(createRLXBuildManifest(manifest));
    break;
  }
  case Phase::Codegen:
    if (isGPUTarget(options.target))
      buildGPUCodegen(pm, options);
    else
      buildCPUCodegen(pm, options);
    break;
  }
}

LogicalResult runPhases(ModuleOp module, Phase last,
                        const PipelineOptions &options,
                        llvm::function_ref<LogicalResult(PassManager &)> configure,
                        CompileStats *stats) {
  return runPhasesFrom(module, Phase::Import, last, options, configure, stats);
}

LogicalResult
runPhasesFrom(ModuleOp module, Phase first, Phase last,
              const PipelineOptions &options,
              llvm::function_ref<LogicalResult(PassManager &)> configure,
              CompileStats *stats) {
  if (std::string error = options.validate(); !error.empty())
    return module.emitError(error);
  if (stats) {
    for (int p = static_cast<int>(first); p <= static_cast<int>(last); ++p) {
      PassManager pm(module->getName());
      if (configure && failed(configure(pm)))
        return failure();
      buildPhasePipeline(pm, static_cast<Phase>(p), options);
      auto start = std::chrono::steady_clock::now();
      if (failed(pm.run(module)))
        return failure();
      stats->phases.push_back(
          {kPhaseNames[p], std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count()});
      if (static_cast<Phase>(p) == Phase::Fuse)
        stats->collectKernels(module);
      if (static_cast<Phase>(p) == Phase::Bufferize)
        stats->collectWorkspaces(module);
    }
    return success();
  }
  PassManager pm(module->getName());
  if (configure && failed(configure(pm)))
    return failure();
  for (int p = static_cast<int>(first); p <= static_cast<int>(last); ++p)
    buildPhasePipeline(pm, static_cast<Phase>(p), options);
  return pm.run(module);
}

/// Registers `arg` as a pipeline taking PipelineOptions; options that do not
/// validate are a parse error naming the pipeline.
static void registerPipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<void(OpPassManager &, const PipelineOptions &)> builder) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [builder, name](OpPassManager &pm, llvm::StringRef text,
                      llvm::function_ref<LogicalResult(const llvm::Twine &)>
                          errorHandler) -> LogicalResult {
        PipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string error = options.validate(); !error.empty())
          return errorHandler(name + ": " + error);
        builder(pm, options);
        return success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(PipelineOptions());
      });
}

void registerCompilerPassesAndPipelines() {
  registerRLXTransformsPasses();
  registerTosaToRLXPasses();
  registerRLXToSCFPasses();
  registerRLXToLinalgPasses();
  registerRLXABIPasses();
  registerRLXCommonPasses();
  registerRLXCPUPasses();
  registerRLXGPUPasses();
  for (int p = 0; p < kPhaseCount; ++p) {
    Phase phase = static_cast<Phase>(p);
    registerPipeline(std::string("rlx-phase-") + kPhaseNames[p],
                     "the passes of one rlx compile phase",
                     [phase](OpPassManager &pm, const PipelineOptions &options) {
                       buildPhasePipeline(pm, phase, options);
                     });
  }
  registerPipeline("rlx-phase-all", "every rlx compile phase, import to codegen",
                   [](OpPassManager &pm, const PipelineOptions &options) {
                     for (int p = 0; p < kPhaseCount; ++p)
                       buildPhasePipeline(pm, static_cast<Phase>(p), options);
                   });
}

} // namespace mlir::rlx

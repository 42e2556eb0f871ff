//===- EmbedDeviceCode.cpp - Kernels into the artifact, launches to calls -===//
///
/// \file
/// The last GPU step before host lowering. Device modules are serialized
/// here rather than by `gpu-module-to-binary` because an artifact carries
/// several objects per module (PTX plus a cubin per chip) and SPIR-V modules
/// are not `gpu.module`s; the results become the exported table
/// `rlx_artifact_device_binaries` (docs/abi.md). Each `gpu.launch_func`
/// becomes a call of `rlx_device_launch(module, kernel, words, num_args)`,
/// where `words` holds the grid, the block and one (kind, value) pair per
/// kernel parameter, in the order the device code takes them.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"
#include "rlx/abi.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUEMBEDDEVICECODE
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kLaunchFn = "rlx_device_launch";

/// The kind words of launch arguments (rlx/abi.h).
enum ArgKind : int64_t {
  Pointer = RLX_KERNEL_ARG_POINTER,
  I32 = RLX_KERNEL_ARG_I32,
  I64 = RLX_KERNEL_ARG_I64,
  F32 = RLX_KERNEL_ARG_F32,
  F64 = RLX_KERNEL_ARG_F64
};

struct DeviceBinary {
  std::string module, format, chip, data;
};

struct Embedder {
  ModuleOp module;
  std::string target, toolkit, dumpDirectory;
  unsigned globalCount = 0;
  llvm::StringMap<LLVM::GlobalOp> strings;

  /// An internal constant global holding `bytes` (plus a NUL when `cstr`).
  LLVM::GlobalOp byteGlobal(StringRef bytes, bool cstr) {
    if (cstr) {
      auto it = strings.find(bytes);
      if (it != strings.end())
        return it->second;
    }
    std::string data = bytes.str();
    if (cstr)
      data.push_back('\0');
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
    auto global = LLVM::GlobalOp::create(
        b, module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Internal,
        ("rlx_device_data_" + llvm::Twine(globalCount++)).str(),
        b.getStringAttr(data));
    if (cstr)
      strings[bytes] = global;
    return global;
  }

  LogicalResult serialize(SmallVectorImpl<DeviceBinary> &binaries) {
    if (target == "vulkan") {
      for (auto spirvModule :
           llvm::make_early_inc_range(module.getOps<spirv::ModuleOp>())) {
        SmallVector<uint32_t> words;
        if (failed(spirv::serialize(spirvModule, words)))
          return failure();
        StringRef name = spirvModule.getName().value_or("");
        name.consume_front("__spv__");
        binaries.push_back(
            {name.str(), RLX_DEVICE_BINARY_FORMAT_SPIRV, "",
             std::string(reinterpret_cast<const char *>(words.data()),
                         words.size() * sizeof(uint32_t))});
        spirvModule.erase();
      }
      return success();
    }
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      if (!targets || targets.empty())
        return gpuModule.emitError("GPU module without a target");
      bool first = true;
      for (Attribute attr : targets) {
        auto targetAttr = cast<gpu::TargetAttrInterface>(attr);
        StringRef chip;
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
          chip = nvvm.getChip();
        else if (auto rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(attr))
          chip = rocdl.getChip();
        auto emit = [&](gpu::CompilationTarget kind,
                        StringRef format) -> LogicalResult {
          gpu::TargetOptions options(toolkit, {}, {}, {}, kind);
          std::optional<SmallVector<char, 0>> object =
              targetAttr.serializeToObject(gpuModule, options);
          if (!object)
            return gpuModule.emitError("cannot compile GPU module '")
                   << gpuModule.getName() << "' for " << chip << " ("
                   << format << ")";
          binaries.push_back({gpuModule.getName().str(), format.str(),
                              chip.str(),
                              std::string(object->begin(), object->end())});
          return success();
        };
        // PTX once, for the oldest chip (the driver JIT-compiles it for any
        // newer one), and a cubin per chip.
        if (target == "cuda" && first &&
            failed(emit(gpu::CompilationTarget::Assembly,
                        RLX_DEVICE_BINARY_FORMAT_PTX)))
          return failure();
        if (failed(emit(gpu::CompilationTarget::Binary,
                        target == "cuda" ? RLX_DEVICE_BINARY_FORMAT_CUBIN
                                         : RLX_DEVICE_BINARY_FORMAT_HSACO)))
          return failure();
        first = false;
      }
    }
    return success();
  }

  /// `rlx_artifact_device_binaries` and `rlx_artifact_device_binary_count`.
  void emitTable(ArrayRef<DeviceBinary> binaries) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = b.getI64Type();
    auto record = LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, ptr, ptr, i64});
    auto tableType = LLVM::LLVMArrayType::get(record, binaries.size());
    SmallVector<std::array<LLVM::GlobalOp, 4>> globals;
    for (const DeviceBinary &binary : binaries)
      globals.push_back({byteGlobal(binary.module, true),
                         byteGlobal(binary.format, true),
                         byteGlobal(binary.chip, true),
                         byteGlobal(binary.data, false)});
    b.setInsertionPointToEnd(module.getBody());
    auto table = LLVM::GlobalOp::create(
        b, loc, tableType, /*isConstant=*/true, LLVM::Linkage::External,
        RLX_ARTIFACT_DEVICE_BINARIES_SYMBOL, Attribute());
    Block *init = b.createBlock(&table.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value value = LLVM::UndefOp::create(b, loc, tableType);
    for (auto [i, binary] : llvm::enumerate(binaries)) {
      for (int field = 0; field < 4; ++field) {
        Value address =
            LLVM::AddressOfOp::create(b, loc, globals[i][field]);
        value = LLVM::InsertValueOp::create(
            b, loc, value, address,
            ArrayRef<int64_t>{static_cast<int64_t>(i), field});
      }
      Value size = LLVM::ConstantOp::create(
          b, loc, i64, b.getI64IntegerAttr(binary.data.size()));
      value = LLVM::InsertValueOp::create(
          b, loc, value, size, ArrayRef<int64_t>{static_cast<int64_t>(i), 4});
    }
    LLVM::ReturnOp::create(b, loc, value);
    b.setInsertionPointToEnd(module.getBody());
    LLVM::GlobalOp::create(b, loc, i64, /*isConstant=*/true,
                           LLVM::Linkage::External,
                           RLX_ARTIFACT_DEVICE_BINARY_COUNT_SYMBOL,
                           b.getI64IntegerAttr(binaries.size()));
  }

  func::FuncOp declareLaunch() {
    if (auto existing = module.lookupSymbol<func::FuncOp>(kLaunchFn))
      return existing;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = b.getI64Type();
    auto fn = func::FuncOp::create(
        b, module.getLoc(), kLaunchFn,
        b.getFunctionType({i64, i64, i64, i64}, {}));
    fn.setPrivate();
    return fn;
  }

  /// Appends the (kind, value) words of one launch operand.
  LogicalResult appendArgument(OpBuilder &b, Location loc, Value operand,
                               SmallVectorImpl<Value> &words) {
    auto word = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v)
          .getResult();
    };
    auto toI64 = [&](Value v) -> Value {
      if (v.getType().isIndex())
        return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
      return v;
    };
    Type type = operand.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      Value pointer = toI64(
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand));
      if (target == "vulkan") {
        words.append({word(Pointer), pointer});
        return success();
      }
      if (memref.getRank() != 1)
        return emitError(loc, "GPU kernel buffer of rank ")
               << memref.getRank() << " (expected flat views)";
      // CUDA/HIP kernels take the expanded descriptor: allocated and aligned
      // pointer, offset, size, stride.
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, operand);
      words.append({word(Pointer), pointer, word(Pointer), pointer, word(I64),
                    toI64(meta.getOffset()), word(I64),
                    toI64(meta.getSizes()[0]), word(I64),
                    toI64(meta.getStrides()[0])});
      return success();
    }
    if (type.isIndex()) {
      if (target == "vulkan")
        words.append({word(I32), toI64(operand)});
      else
        words.append({word(I64), toI64(operand)});
      return success();
    }
    if (type.isInteger(32)) {
      words.append({word(I32), arith::ExtSIOp::create(b, loc, b.getI64Type(),
                                                      operand)});
      return success();
    }
    if (type.isInteger(64)) {
      words.append({word(I64), operand});
      return success();
    }
    if (type.isF32()) {
      Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), operand);
      words.append(
          {word(F32), arith::ExtUIOp::create(b, loc, b.getI64Type(), bits)});
      return success();
    }
    if (type.isF64()) {
      words.append(
          {word(F64), arith::BitcastOp::create(b, loc, b.getI64Type(), operand)});
      return success();
    }
    return emitError(loc, "GPU kernel argument of type ")
           << type << " cannot be passed to a kernel";
  }

  Value stringPointer(OpBuilder &b, Location loc, StringRef text) {
    LLVM::GlobalOp global = byteGlobal(text, true);
    Value address = LLVM::AddressOfOp::create(b, loc, global);
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  }

  LogicalResult lowerLaunch(gpu::LaunchFuncOp launch, func::FuncOp callee) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken())
      return launch.emitError("async GPU launches are not supported");
    SmallVector<Value> words;
    for (Value size : {launch.getGridSizeX(), launch.getGridSizeY(),
                       launch.getGridSizeZ(), launch.getBlockSizeX(),
                       launch.getBlockSizeY(), launch.getBlockSizeZ()})
      words.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), size));
    size_t header = words.size();
    for (Value operand : launch.getKernelOperands())
      if (failed(appendArgument(b, loc, operand, words)))
        return failure();
    int64_t numArgs = (words.size() - header) / 2;
    auto bufferType = MemRefType::get({static_cast<int64_t>(words.size())},
                                      b.getI64Type());
    Value buffer = memref::AllocaOp::create(b, loc, bufferType);
    for (auto [i, word] : llvm::enumerate(words)) {
      Value index = arith::ConstantIndexOp::create(b, loc, i);
      memref::StoreOp::create(b, loc, word, buffer, index);
    }
    Value bufferPointer = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
    Value count = arith::ConstantIntOp::create(b, loc, b.getI64Type(), numArgs);
    func::CallOp::create(
        b, loc, callee,
        ValueRange{stringPointer(b, loc, launch.getKernelModuleName()),
                   stringPointer(b, loc, launch.getKernelName()),
                   bufferPointer, count});
    launch.erase();
    return success();
  }

  /// Writes each binary to dumpDirectory/<module>[.<chip>].<format>.
  LogicalResult dump(ArrayRef<DeviceBinary> binaries) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(dumpDirectory))
      return module.emitError("cannot create '")
             << dumpDirectory << "': " << ec.message();
    for (const DeviceBinary &binary : binaries) {
      llvm::SmallString<128> path(dumpDirectory);
      std::string name = binary.module;
      if (!binary.chip.empty())
        name += "." + binary.chip;
      name += "." + (binary.format == "spirv" ? std::string("spv")
                                              : binary.format);
      llvm::sys::path::append(path, name);
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return module.emitError("cannot write '")
               << path << "': " << ec.message();
      os << binary.data;
    }
    return success();
  }

  LogicalResult run() {
    SmallVector<DeviceBinary> binaries;
    if (failed(serialize(binaries)))
      return failure();
    if (!dumpDirectory.empty() && failed(dump(binaries)))
      return failure();
    func::FuncOp callee = declareLaunch();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(lowerLaunch(launch, callee)))
        return failure();
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    emitTable(binaries);
    return success();
  }
};

struct RLXGPUEmbedDeviceCodePass
    : mlir::rlx::impl::RLXGPUEmbedDeviceCodeBase<RLXGPUEmbedDeviceCodePass> {
  using Base::Base;
  void runOnOperation() override {
    if (target != "vulkan" && target != "cuda" && target != "rocm") {
      getOperation().emitError("unknown GPU target '") << target << "'";
      return signalPassFailure();
    }
    Embedder embedder;
    embedder.module = getOperation();
    embedder.target = target;
    embedder.toolkit = toolkitPath;
    embedder.dumpDirectory = dumpDirectory;
    if (failed(embedder.run()))
      signalPassFailure();
  }
};

} // namespace

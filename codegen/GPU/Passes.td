//===- Passes.td - GPU codegen passes -----------------------*- tablegen -*-===//

#ifndef RLX_CODEGEN_GPU_PASSES_TD
#define RLX_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXGPUPrepareBuffers : Pass<"rlx-gpu-prepare-buffers", "mlir::ModuleOp"> {
  let summary = "Makes every buffer access of an entry point device work";
  let description = [{
    In a GPU artifact every buffer lives in device memory, so host code may
    not touch element data. This pass turns `memref.copy` into `linalg.copy`
    (a kernel after the loop mapping) and every `memref.get_global` constant
    into a device buffer filled by `rlx_device_upload` at entry and freed at
    each return.
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::func::FuncDialect",
    "mlir::arith::ArithDialect"
  ];
}

def RLXGPUTileMatmul : Pass<"rlx-gpu-tile-matmul", "mlir::ModuleOp"> {
  let summary = "Matmuls on buffers as workgroup-memory tiled gpu.launch kernels";
  let description = [{
    Each `linalg.matmul`/`linalg.batch_matmul` (default maps) becomes a
    `gpu.launch` of `tile` x `tile` threads per block, each accumulating
    `outputs-per-thread`^2 outputs in registers, staging tiles of A and B in
    workgroup memory per step along K (barriers around the accumulation). Runs before the loop lowering;
    `rlx-gpu-map-kernels` later passes its buffers as flat views.
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"16",
           "threads per block along each of rows and columns (and K step)">,
    Option<"outputsPerThread", "outputs-per-thread", "int64_t",
           /*default=*/"4",
           "each thread computes this many rows times this many columns">
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"
  ];
}

def RLXGPUTensorCoreMatmul
    : Pass<"rlx-gpu-tensor-core-matmul", "mlir::ModuleOp"> {
  let summary = "bf16 and f16 matmuls into f32 on CUDA tensor cores (mma.sync)";
  let description = [{
    Each `linalg.matmul`/`linalg.batch_matmul` (default maps) of bf16 x
    bf16 or f16 x f16 operands into f32 becomes a `gpu.launch` of 4 warps
    per 64 x 64 tile of C, each warp a 32 x 32 quarter as 2 x 4
    `nvvm.mma.sync` m16n8k16 tiles (sm_80 and later) with f32 accumulators
    in registers; per step of 32 along K the block stages A's and B's tiles
    in workgroup memory as 32-bit pairs of K elements, zeros past the edges.
    The result is added to C (linalg.matmul accumulates). Runs before
    `rlx-gpu-tile-matmul`, which leaves mixed-type matmuls alone; only in a
    CUDA compile whose chips are all sm_80 or later.
  }];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect",
    "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"
  ];
}

def RLXGPUBlockReductions : Pass<"rlx-gpu-block-reductions", "mlir::ModuleOp"> {
  let summary = "Reductions over every dim as one block with a tree in workgroup memory";
  let description = [{
    A `linalg.generic` on buffers whose loops are all reductions into a 0-d
    output, folding with one op that has a neutral element (addf, addi,
    mulf, maximumf, minimumf, ...), becomes a one-block `gpu.launch`:
    strided per-thread partials, then a tree in workgroup memory. Without it
    the loop mapping would run the reduction on one thread.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "threads of the block (a power of two)">
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect",
    "mlir::affine::AffineDialect"
  ];
}

def RLXGPUMapKernels : Pass<"rlx-gpu-map-kernels", "mlir::ModuleOp"> {
  let summary = "Turns the loop nests of entry points into gpu.launch kernels";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`. Every top-level
    `scf.parallel` becomes a one-dimensional grid-stride `gpu.launch`
    (`block-size` threads per block, at most 65535 blocks) over the product
    of its trip counts; every other top-level loop nest or buffer access
    (a full reduction, a 0-d store) becomes a one-thread launch. Inside a
    launch every access to a buffer defined outside goes through a flat
    `memref<?xT>` view of the buffer's base with the offset and strides
    computed on the host, so kernels take base pointers and scalars only
    (what SPIR-V storage buffers and bare CUDA/HIP pointers can express).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "threads per block of elementwise kernels">
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"
  ];
}

def RLXGPUMergeModules : Pass<"rlx-gpu-merge-modules", "mlir::ModuleOp"> {
  let summary = "Moves every outlined kernel into one gpu.module";
  let description = [{
    After `gpu-kernel-outlining` (a module per kernel): one module
    `rlx_kernels` holds every kernel, each named after its old module, and
    the launches point at it, so each device backend runs once per chip.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def RLXGPUPrepareSPIRV : Pass<"rlx-gpu-prepare-spirv", "mlir::ModuleOp"> {
  let summary = "Readies outlined kernels for the SPIR-V (Vulkan) conversion";
  let description = [{
    Attaches a SPIR-V 1.3 / Vulkan `spirv.target_env` to every `gpu.module` and the
    `spirv.entry_point_abi` workgroup size to every kernel, expands math
    functions GLSL.std.450 lacks (`erf` by a polynomial) and refuses, naming
    the op, what SPIR-V cannot do (64-bit transcendental functions, bf16).
  }];
  let dependentDialects = ["mlir::spirv::SPIRVDialect"];
}

def RLXGPUEmbedDeviceCode
    : Pass<"rlx-gpu-embed-device-code", "mlir::ModuleOp"> {
  let summary = "Serializes kernels into the artifact and lowers launches";
  let description = [{
    Serializes every device module (SPIR-V words, PTX and cubins per chip,
    hsaco per chip) into `rlx_artifact_device_binaries` (docs/abi.md), and
    replaces each `gpu.launch_func` by a call of `rlx_device_launch` with the
    grid, the block and the kernel arguments packed as (kind, value) words.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"vulkan\"",
           "vulkan, cuda or rocm">,
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit (ptxas) or ROCm toolkit folder (bitcode, ld.lld)">,
    Option<"dumpDirectory", "dump-dir", "std::string", /*default=*/"\"\"",
           "also write each binary to DIR/<module>.<chip>.<format>">
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"
  ];
}

def RLXGPUDeviceHooks : Pass<"rlx-gpu-device-hooks", "mlir::ModuleOp"> {
  let summary = "Defines device allocation, upload and launch through hooks";
  let description = [{
    Runs on the LLVM dialect, before rlx-return-on-failure: defines
    `_mlir_memref_to_llvm_alloc`/`_aligned_alloc`/`_free`,
    `rlx_device_upload` and `rlx_device_launch` as calls through the
    exported `rlx_artifact_device_*_hook` pointers the runtime sets at load
    (docs/abi.md). Without a runtime (hooks null) they abort.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // RLX_CODEGEN_GPU_PASSES_TD

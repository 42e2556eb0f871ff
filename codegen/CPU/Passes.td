//===- Passes.td - CPU codegen passes -----------------------*- tablegen -*-===//

#ifndef RLX_CODEGEN_CPU_PASSES_TD
#define RLX_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXCPUVectorizeMatmul : Pass<"rlx-cpu-vectorize-matmul", "mlir::ModuleOp"> {
  let summary = "Tiles linalg.matmul on buffers for registers and vectorizes it";
  let description = [{
    Tiles every `linalg.matmul` (on memrefs) into `tile-m` x `tile-n` x 1
    register tiles, vectorizes them (masked at partial tiles), lowers the
    contractions to outer products and hoists the accumulator out of the k
    loop, so the C tile lives in vector registers. Applied with the transform
    dialect interpreter from a script built in C++.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8", "rows per tile">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32", "columns per tile">,
    Option<"tallTileM", "tall-tile-m", "int64_t", /*default=*/"0",
           "rows per tile of a product streaming its B panels from L2 (one "
           "in-place block of A): the most the registers hold, fewer passes "
           "over B; 0 = tile-m">
  ];
  let dependentDialects = [
    "mlir::transform::TransformDialect", "mlir::linalg::LinalgDialect",
    "mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
    "mlir::memref::MemRefDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

def RLXCPUDotProductMatmul : Pass<"rlx-cpu-dot-product-matmul", "mlir::ModuleOp"> {
  let summary = "Lowers bf16 -> f32 and i8 -> i32 linalg.matmul to dot-product instructions";
  let description = [{
    Every `linalg.matmul` on memrefs with the plain maps and bf16 operands
    into f32 (`bf16`: AVX512-BF16's vdpbf16ps) or i8 operands into i32
    (`int8`: AVX512-VNNI's vpdpbusd, B offset to unsigned and each row
    corrected by 128 times its sum), and every linalg.generic marked
    `rlx.packed_rhs` (a matmul by a weight already in that layout, see
    rlx-pack-dot-operands), becomes: B copied into k-groups of 32-column
    panels (zero padded; not for a prepacked B), then blocks of rows in
    parallel, each 8 x 32 register tiles (one row at a time for the rest)
    whose k loop is the dot product of a broadcast group of A and packed B.
    With `amx-bf16` / `amx-int8`, each block's whole 16-row tiles of a
    panel inside C run on AMX tile registers instead (tdpbf16ps, tdpbsud,
    2 x 2 tiles of 16 x 16 per k step), over the k of whole tiles; the k
    tail, the int8 row offsets and the rows beyond stay on the zmm tiles.
    The pipeline enables each kind only when the target CPU has its
    instruction.
  }];
  let options = [
    Option<"bf16", "bf16", "bool", /*default=*/"true",
           "lower bf16 x bf16 -> f32 matmuls (vdpbf16ps)">,
    Option<"int8", "int8", "bool", /*default=*/"true",
           "lower i8 x i8 -> i32 matmuls (vpdpbusd)">,
    Option<"amxBF16", "amx-bf16", "bool", /*default=*/"false",
           "run bf16 matmuls' whole tiles on AMX (tdpbf16ps)">,
    Option<"amxInt8", "amx-int8", "bool", /*default=*/"false",
           "run int8 matmuls' whole tiles on AMX (tdpbsud)">
  ];
  let dependentDialects = [
    "mlir::amx::AMXDialect",
    "mlir::x86vector::X86VectorDialect", "mlir::vector::VectorDialect",
    "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect"
  ];
}

def RLXCPULowerStridedCopies : Pass<"rlx-cpu-lower-strided-copies", "mlir::ModuleOp"> {
  let summary = "Turns memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    The LLVM lowering of a `memref.copy` whose operands are not both
    contiguous calls `memrefCopy` from MLIR's C runner utilities, a library
    an artifact must not depend on. Such copies become `linalg.copy`, which
    lowers to loops; contiguous copies stay and become `memcpy`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def RLXCPUSplitReductions : Pass<"rlx-cpu-split-reductions"> {
  let summary = "Splits long 1-D full reductions into parallel partials";
  let description = [{
    On tensors, after fusion: a linalg op whose only loop is a reduction of
    a static length of at least 2^16 becomes partials over up to 64 parts
    (a parallel dim) and a fold of the partials (linalg's splitReduction),
    so both cores work on it.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def RLXCPUFilterGradientRows : Pass<"rlx-cpu-filter-gradient-rows"> {
  let summary = "Runs a conv's filter gradient over output rows, every tap per row";
  let description = [{
    On tensors, after fusion: the f32 products of one output gradient G
    ([N*OH*OW, F], the collapse of a 4-D tensor) by transposed
    [N*OH*OW, C] collapses of 4-D tensors or of their static strided slices
    (a conv's filter gradient per window offset, from its VJP), each into a
    zero fill, with static shapes, a chunk's partial sums within 1 MiB
    (256 KiB for a single product: a 1x1 conv's), and rows of
    `min-row-pixels` pixels or more, become one loop over the output rows
    in parallel chunks: per row, each tap adds its input row [OW, C] (a strided view, no copy),
    transposed, times G's row [OW, F] into its own [C, F] partial sum; the
    chunks' partial sums are added at the end. The strided slices' copies
    and the per-tap packing of G go.
  }];
  let options = [
    Option<"minRowPixels", "min-row-pixels", "int64_t", /*default=*/"16",
           "output pixels per row from which the rows take the products">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def RLXCPUConvTapProducts : Pass<"rlx-cpu-conv-tap-products"> {
  let summary = "Runs a padded convolution as products per filter tap, skipping its padding";
  let description = [{
    On tensors, after fusion: an f32 product (a `linalg.matmul` or a
    prepacked `rlx.packed_rhs` generic) into a zero fill whose A is the
    im2col copy of a zero-padded input becomes a sum of one product per
    filter tap (kh, kw) over only the output pixels whose input pixel for
    that tap is inside the image, A read in place as a strided view of
    the unpadded input, B the tap's rows of the filter. Loops: column
    groups of 64 (marked for rlx-cpu-parallelize), images, then the
    output rows and the kh valid for each where the group's filter for
    every tap is at most `row-outer-bytes` (its C tile stays in L1 through
    its taps), else kh and the output rows valid for it; the KW taps
    unrolled. The padded input and the
    im2col copy go. Needs static image height, width and channels, no
    width dilation, and `min-tap-depth` channels or more.
  }];
  let options = [
    Option<"minTapDepth", "min-tap-depth", "int64_t", /*default=*/"64",
           "input channels from which a conv takes per-tap products">,
    Option<"rowOuterBytes", "row-outer-bytes", "int64_t",
           /*default=*/"393216",
           "most bytes of a column group's filter (every tap) for which "
           "output rows, not filter rows, are the outer loop">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect"];
}

def RLXCPUFuseMatmulEpilogues : Pass<"rlx-cpu-fuse-matmul-epilogues"> {
  let summary = "Runs a matmul's fill and elementwise epilogue per row tile";
  let description = [{
    On tensors, after fusion: an f32 `linalg.matmul` into a zero fill whose
    only reader is an all-parallel `linalg.generic` (bias, activation,
    residual add; through the `tensor.expand_shape` of a convolution's
    product) becomes one loop over tiles of `rows-per-tile` rows (a multiple
    of the matmul kernel's register tile height), marked for
    rlx-cpu-parallelize: fill, product and epilogue per tile, in place in
    the epilogue's output. The product never makes a round trip through
    memory. A product whose A is a convolution's im2col copy gets the same
    loop, with or without an epilogue, each tile copying its own rows of
    windows from the padded input (implicit im2col): the whole copy goes.
    So does a static product of 512 KiB and 64 rows or more without an
    epilogue (a fill per tile instead of a pass over the whole product).
    A product by a prepacked f32 weight (its `rlx.packed_rhs` generic) takes
    the same loop, each tile such a generic; of 512 rows or more by a
    weight beyond 32 KiB of four panels or more, in tiles of up to four
    times `rows-per-tile` (the tallest dividing the rows), so each panel
    stays in L1 across the register tiles of a tile; such a product by a
    weight from `whole-product-bytes` up to 4 MiB keeps those tiles. Not
    for a B the matmul kernel packs at each call into panels of `tile-columns` (512 KiB or more, or
    smaller with rows crowding a few L1 sets where A is no im2col copy) or
    prepacked of `whole-product-bytes` or more (2 MiB; that schedule wants
    the whole product).
  }];
  let options = [
    Option<"rowsPerTile", "rows-per-tile", "int64_t", /*default=*/"8",
           "rows per tile">,
    Option<"tileColumns", "tile-columns", "int64_t", /*default=*/"32",
           "columns of the matmul kernel's register tile, the width of "
           "the panels it packs a B into at each call">,
    Option<"wholeProductBytes", "whole-product-bytes", "int64_t",
           /*default=*/"2097152",
           "bytes of a prepacked f32 B from which its product keeps the "
           "packed schedule's whole-product loops">,
    Option<"bf16Products", "bf16-products", "bool", /*default=*/"false",
           "also bf16 x bf16 -> f32 products (the bf16 dot-product "
           "kernel's, on a CPU with AVX512-BF16) whose A is an im2col copy "
           "or that have an epilogue, in tiles of 32 rows, B under "
           "whole-product-bytes">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect"];
}

def RLXCPUVectorizeLoops : Pass<"rlx-cpu-vectorize-loops", "mlir::ModuleOp"> {
  let summary = "Vectorizes elementwise, broadcast, transpose and reduction loops";
  let description = [{
    Tiles every linalg op on buffers other than matmuls and convolutions to
    1 x ... x 1 x W, W one 512-bit vector of its widest element, and
    vectorizes the tiles with masks (partial tiles and dynamic sizes need no
    remainder loop); an innermost extent of exactly 2 x W in a reduction or
    a 1-D op is one untiled tile, so sums into 32 f32 columns stay in
    registers across the reduction loop, and the add of a product marked
    `contract` becomes one fused multiply-add. Lowers masks, permuted transfers and multi-reductions
    and replaces f32 transcendental functions by polynomial approximations
    so the loop bodies stay vector code. Ops whose bodies read other buffers
    (gathers) or hold i1 buffers stay scalar loops.
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::vector::VectorDialect",
    "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect"
  ];
}

def RLXCPUParallelize : Pass<"rlx-cpu-parallelize", "mlir::ModuleOp"> {
  let summary = "Turns loops marked rlx.parallel into scf.parallel where it pays";
  let description = [{
    Each outermost `scf.for` marked `rlx.parallel` by the vectorizing passes
    (it walks a parallel dimension) becomes an `scf.parallel` when its
    estimated work (element operations, vector width times nested static
    trip counts) reaches about 256K: decided at compile time for static trip
    counts, else by a run-time test choosing between a parallel and a serial
    copy of the loop. Other marks are dropped.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def RLXCPUExpandBF16Casts : Pass<"rlx-cpu-expand-bf16-casts", "mlir::ModuleOp"> {
  let summary = "Writes bf16 extensions and truncations as integer ops";
  let description = [{
    `arith.extf` from bf16 to f32 and `arith.truncf` from f32 to bf16
    become bitcasts, shifts and the round-to-nearest-even add, a NaN
    keeping its sign and top payload bits (quieted), on every CPU: without
    AVX512-BF16, LLVM lowers each truncation to a call of `__truncsfbf2`
    per element, where the integer ops vectorize with their loops; with it,
    to vcvtneps2bf16, which flushes f32 subnormals to zero (ml_dtypes and
    every other target keep them).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def RLXCPUMoveHalfFloatsAsI16 : Pass<"rlx-cpu-move-half-floats-as-i16", "mlir::ModuleOp"> {
  let summary = "Moves bf16 and f16 vector elements as i16 in the LLVM dialect";
  let description = [{
    `llvm.insertelement`, `llvm.extractelement`, `llvm.shufflevector` and
    `llvm.select` on bf16 or f16 values run on the i16 values of the same
    bits, bitcast at their ends. x86 without native 16-bit floats promotes
    such a vector to f32 to move its elements and truncates it back, a
    call of `__truncsfbf2` per bf16 element.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RLXCPUInlineAllocaScopes : Pass<"rlx-cpu-inline-alloca-scopes", "mlir::ModuleOp"> {
  let summary = "Inlines the alloca scopes of bodies that make no alloca";
  let description = [{
    Every `memref.alloca_scope` whose region holds no `memref.alloca` is
    replaced by its body. convert-scf-to-openmp wraps each parallel body in
    one, and upstream's canonicalization keeps one around any op without
    memory effects (an `llvm.call_intrinsic`), whose loops, lowered, would
    give the scope several blocks.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def RLXCPUThreadCount : Pass<"rlx-cpu-thread-count", "mlir::ModuleOp"> {
  let summary = "Reads each parallel region's thread count from the artifact";
  let description = [{
    Declares the exported global `rlx_artifact_num_threads` (i32, 0 until the
    runtime sets it) and gives every `omp.parallel` the thread count
    max(rlx_artifact_num_threads, 1), read when the region starts.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::omp::OpenMPDialect",
                           "mlir::arith::ArithDialect"];
}

def RLXCPUOutlineKernels : Pass<"rlx-cpu-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Moves each loop nest of a long function into a function of its own";
  let description = [{
    A function with more than `min-kernels` top-level ops holding regions
    (loop nests, parallel regions, branches) gets each of them outlined into
    a private, never-inlined function taking the values it uses and
    returning the op's results. What constants alone determine (constants,
    vector masks) is recomputed inside; a kernel reading any other vector
    value stays in place (vectors of i1 passed through a call were
    miscompiled). LLVM's function passes
    are not linear in the size of one function: loop rotation updates the
    dominator tree of everything after each loop, so 400 softmax kernels in
    one function spent most of their compile time there. Many small
    functions compile in linear time; a call per kernel costs nothing
    measurable. Functions with few kernels are left as they are.
  }];
  let options = [
    Option<"minKernels", "min-kernels", "int64_t", /*default=*/"32",
           "Outline only in functions with more top-level region ops than this">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // RLX_CODEGEN_CPU_PASSES_TD

def RLXCPUStackLoopBuffers : Pass<"rlx-cpu-stack-loop-buffers", "mlir::ModuleOp"> {
  let summary = "Moves small buffers made and freed in a loop's body to the stack";
  let description = [{
    A `memref.alloc` of static shape and at most 64 KiB inside a loop, freed
    by one `memref.dealloc` later in its block, becomes a `memref.alloca`
    between `llvm.intr.stacksave` (at the allocation) and
    `llvm.intr.stackrestore` (at the free), so each iteration returns its
    stack bytes. Buffers whose lifetimes in a block would cross (not nest)
    keep the heap. A per-tile scratch buffer otherwise costs a malloc, a
    free and the runtime's lock per tile, which serialized the threads.
    Runs after convert-scf-to-openmp: an alloca in a parallel body would
    keep the alloca scope the conversion wraps it in, and lowering the loops
    inside that scope gives it blocks its verifier refuses.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect"];
}

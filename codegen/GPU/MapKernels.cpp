//===- MapKernels.cpp - Loop nests to gpu.launch --------------------------===//
///
/// \file
/// After `convert-linalg-to-parallel-loops` an entry point is host code
/// (allocations, views, dims) interleaved with loop nests that touch
/// buffers. Each such nest becomes a `gpu.launch`:
///
/// - an `scf.parallel` becomes a one-dimensional grid-stride loop over the
///   product of its trip counts, so any rank maps onto threads with
///   consecutive threads on consecutive innermost elements (coalesced), and
///   the grid stays under the 65535 blocks every Vulkan device accepts;
/// - any other nest (a full reduction, a store into a 0-d buffer) runs on
///   one thread;
/// - control flow holding device work (an rlx.scan's steps, a while loop, a
///   switch) stays on the host, its regions mapped the same way; a scalar
///   the host branches on (a while condition, a switch index, a loop
///   bound) is copied from device memory by `rlx_device_download` into a
///   stack buffer and loaded from there.
///
/// Kernels must not see memref descriptors: SPIR-V storage buffers carry no
/// sizes or strides and CUDA/HIP kernel parameters are plain words. So each
/// buffer a launch reads or writes is passed as a flat `memref<?xT>` view
/// of its base allocation, and its offset, sizes and strides as scalars
/// (constants when the type knows them); loads and stores index that view
/// with the linearized address.
///
//===----------------------------------------------------------------------===//

#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXGPUMAPKERNELS
#include "codegen/GPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The most blocks of a one-dimensional grid that every Vulkan device
/// supports (maxComputeWorkGroupCount[0] >= 65535).
constexpr int64_t kMaxBlocks = 65535;

/// The allocation `buffer` views (through casts), if any.
Operation *rootAlloc(Value buffer) {
  while (auto cast = buffer.getDefiningOp<memref::CastOp>())
    buffer = cast.getSource();
  if (auto alloca = buffer.getDefiningOp<memref::AllocaOp>())
    return alloca;
  return buffer.getDefiningOp<memref::AllocOp>();
}

/// The buffer `buffer` is a view of (through casts, subviews, reshapes).
Value baseBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

constexpr llvm::StringLiteral kDownloadFn = "rlx_device_download";

/// `rlx_device_download(host, device, bytes)`, declared once per module.
func::FuncOp declareDownload(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kDownloadFn))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto fn = func::FuncOp::create(b, module.getLoc(), kDownloadFn,
                                 b.getFunctionType({i64, i64, i64}, {}));
  fn.setPrivate();
  return fn;
}

/// A pointer as the hooks take it: an i64.
Value pointerAsI64(OpBuilder &b, Location loc, Value buffer) {
  Value index =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The host's version of `load` (of device memory, at `buffer[indices]`
/// as the host sees them), built at `b`: a stack buffer at the function's
/// entry (one serves every execution, as keepOnHost's do), filled by the
/// download hook, then loaded. Device memory holds an i1 in a byte, as the
/// host does.
FailureOr<Value> downloadScalar(OpBuilder &b, memref::LoadOp load,
                                Value buffer, ValueRange indices) {
  Location loc = load.getLoc();
  Type element = load.getType();
  if (!element.isIntOrFloat())
    return load.emitError("GPU codegen: the host would read a device value "
                          "of type ")
           << element;
  auto fn = load->getParentOfType<func::FuncOp>();
  OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
  auto staging =
      memref::AllocaOp::create(entry, loc, MemRefType::get({}, element));

  int64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value linear = meta.getOffset();
  for (auto [i, stride] : llvm::zip(indices, meta.getStrides())) {
    Value term = arith::MulIOp::create(b, loc, i, stride);
    linear = arith::AddIOp::create(b, loc, linear, term);
  }
  Value size = arith::ConstantIndexOp::create(b, loc, bytes);
  Value start =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value address = arith::AddIOp::create(
      b, loc, start, arith::MulIOp::create(b, loc, linear, size));
  Value device =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  Value count = arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes);
  func::CallOp::create(
      b, loc, declareDownload(fn->getParentOfType<ModuleOp>()),
      ValueRange{pointerAsI64(b, loc, staging), device, count});
  return memref::LoadOp::create(b, loc, staging, ValueRange{}).getResult();
}

/// Buffers the host itself reads and writes: those passed to a host
/// function (the deallocation pipeline's `dealloc_helper` bookkeeping of
/// which buffers a loop owns). Their loads and stores stay host code.
llvm::SmallPtrSet<Operation *, 8> hostBuffers(func::FuncOp fn) {
  llvm::SmallPtrSet<Operation *, 8> host;
  fn.walk([&](func::CallOp call) {
    for (Value operand : call.getOperands())
      if (isa<MemRefType>(operand.getType()))
        if (Operation *alloc = rootAlloc(operand))
          host.insert(alloc);
  });
  return host;
}

bool touchesBuffers(Operation *op,
                    const llvm::SmallPtrSetImpl<Operation *> &host) {
  bool found = false;
  op->walk([&](Operation *nested) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(nested))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(nested))
      memref = store.getMemRef();
    if (memref) {
      Operation *alloc = rootAlloc(memref);
      found |= !alloc || !host.contains(alloc);
    } else if (isa<linalg::LinalgOp>(nested)) {
      found = true;
    }
  });
  return found;
}

/// A buffer as a kernel sees it: a flat view of its base plus the scalars
/// that linearize an index, valid inside the launch.
struct FlatBuffer {
  Value flat;
  Value offset;
  SmallVector<Value> sizes, strides;
};

/// Creates the host side (before `launch`) and the in-kernel values of
/// `buffer`'s flat form.
FlatBuffer flatten(OpBuilder &host, Block &kernel, Location loc,
                   Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(host, loc, buffer);
  SmallVector<int64_t> staticStrides;
  int64_t staticOffset;
  if (failed(type.getStridesAndOffset(staticStrides, staticOffset))) {
    staticStrides.assign(type.getRank(), ShapedType::kDynamic);
    staticOffset = ShapedType::kDynamic;
  }
  // Extent of the base the view may touch: offset + sum(size * stride),
  // an upper bound that keeps the view's size honest.
  Value extent = meta.getOffset();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value span = arith::MulIOp::create(host, loc, meta.getSizes()[d],
                                       meta.getStrides()[d]);
    extent = arith::AddIOp::create(host, loc, extent, span);
  }
  Value one = arith::ConstantIndexOp::create(host, loc, 1);
  extent = arith::MaxSIOp::create(host, loc, extent, one);
  auto flatType = MemRefType::get({ShapedType::kDynamic},
                                  type.getElementType());
  Value flat = memref::ReinterpretCastOp::create(
      host, loc, flatType, meta.getBaseBuffer(),
      /*offset=*/host.getIndexAttr(0),
      /*sizes=*/ArrayRef<OpFoldResult>{extent},
      /*strides=*/ArrayRef<OpFoldResult>{host.getIndexAttr(1)});

  // Constants go at the kernel's start, which dominates every access
  // (ops are replaced while this runs, so no insertion point is kept).
  auto inKernel = [&](int64_t known, Value dynamic) -> Value {
    if (ShapedType::isDynamic(known))
      return dynamic;
    OpBuilder device = OpBuilder::atBlockBegin(&kernel);
    return arith::ConstantIndexOp::create(device, loc, known);
  };
  FlatBuffer result;
  result.flat = flat;
  result.offset = inKernel(staticOffset, meta.getOffset());
  for (int64_t d = 0; d < type.getRank(); ++d) {
    result.sizes.push_back(inKernel(type.getDimSize(d), meta.getSizes()[d]));
    result.strides.push_back(inKernel(staticStrides[d], meta.getStrides()[d]));
  }
  return result;
}

Value linearIndex(OpBuilder &b, Location loc, const FlatBuffer &buffer,
                  ValueRange indices) {
  Value index = buffer.offset;
  for (auto [i, stride] : llvm::zip(indices, buffer.strides)) {
    Value term = arith::MulIOp::create(b, loc, i, stride);
    index = arith::AddIOp::create(b, loc, index, term);
  }
  return index;
}

/// A parallel loop nested under a sequential one (a reduction over an outer
/// dim) runs sequentially inside its thread: SPIR-V has no scf.parallel.
void sequentializeNestedParallels(gpu::LaunchOp launch) {
  SmallVector<scf::ParallelOp> nested;
  launch.getBody().walk([&](scf::ParallelOp op) { nested.push_back(op); });
  // Innermost first, so each rewrite sees plain loops inside.
  for (scf::ParallelOp loop : llvm::reverse(nested)) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    IRMapping mapping;
    for (auto [iv, lb, ub, step] :
         llvm::zip(loop.getInductionVars(), loop.getLowerBound(),
                   loop.getUpperBound(), loop.getStep())) {
      auto forOp = scf::ForOp::create(b, loc, lb, ub, step);
      mapping.map(iv, forOp.getInductionVar());
      b.setInsertionPointToStart(forOp.getBody());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
  }
}

/// Rewrites every access in `launch` to a buffer defined outside it.
LogicalResult flattenAccesses(gpu::LaunchOp launch) {
  sequentializeNestedParallels(launch);
  OpBuilder host(launch);
  Block &kernel = launch.getBody().front();
  llvm::DenseMap<Value, FlatBuffer> flats;
  auto lookup = [&](Value buffer, Location loc) -> FlatBuffer & {
    auto it = flats.find(buffer);
    if (it == flats.end())
      it = flats.try_emplace(buffer, flatten(host, kernel, loc, buffer)).first;
    return it->second;
  };
  auto outside = [&](Value v) {
    return !launch.getBody().isAncestor(v.getParentRegion());
  };

  SmallVector<Operation *> users;
  launch.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && outside(operand)) {
        users.push_back(op);
        break;
      }
  });
  for (Operation *op : users) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      FlatBuffer &flat = lookup(load.getMemRef(), loc);
      Value index = linearIndex(b, loc, flat, load.getIndices());
      Value value = memref::LoadOp::create(b, loc, flat.flat, index);
      load.replaceAllUsesWith(value);
      load.erase();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      FlatBuffer &flat = lookup(store.getMemRef(), loc);
      Value index = linearIndex(b, loc, flat, store.getIndices());
      memref::StoreOp::create(b, loc, store.getValueToStore(), flat.flat,
                              index);
      store.erase();
    } else if (auto dim = dyn_cast<memref::DimOp>(op)) {
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d)
        return dim.emitError("a dynamic dim index in a GPU kernel");
      dim.replaceAllUsesWith(lookup(dim.getSource(), loc).sizes[*d]);
      dim.erase();
    } else {
      return op->emitError("GPU codegen cannot pass this buffer use to a "
                           "kernel: ")
             << op->getName();
    }
  }
  return success();
}

struct RLXGPUMapKernelsPass
    : mlir::rlx::impl::RLXGPUMapKernelsBase<RLXGPUMapKernelsPass> {
  using Base::Base;

  /// A launch of grid x block threads (1-D), with an empty body ending in
  /// gpu.terminator; the builder is left at the body's start.
  gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value grid,
                             int64_t block) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value blockSize = arith::ConstantIndexOp::create(b, loc, block);
    auto launch =
        gpu::LaunchOp::create(b, loc, grid, one, one, blockSize, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>())
      gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    return launch;
  }

  LogicalResult mapParallel(scf::ParallelOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    if (!loop.getInitVals().empty())
      return loop.emitError("GPU codegen: parallel loop with reductions");
    // Trip counts and their product on the host.
    SmallVector<Value> trips;
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                         loop.getUpperBound(),
                                         loop.getStep())) {
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      Value trip = arith::CeilDivSIOp::create(b, loc, span, step);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      trip = arith::MaxSIOp::create(b, loc, trip, zero);
      trips.push_back(trip);
      total = arith::MulIOp::create(b, loc, total, trip);
    }
    Value blockSizeValue = arith::ConstantIndexOp::create(b, loc, blockSize);
    Value blocks = arith::CeilDivSIOp::create(b, loc, total, blockSizeValue);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value maxBlocks = arith::ConstantIndexOp::create(b, loc, kMaxBlocks);
    blocks = arith::MinSIOp::create(b, loc, blocks, maxBlocks);
    blocks = arith::MaxSIOp::create(b, loc, blocks, one);

    gpu::LaunchOp launch = createLaunch(b, loc, blocks, blockSize);
    Value bsz = arith::ConstantIndexOp::create(b, loc, blockSize);
    Value first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, bsz),
        launch.getThreadIds().x);
    Value stride = arith::MulIOp::create(b, loc, launch.getGridSize().x, bsz);
    auto strideLoop = scf::ForOp::create(b, loc, first, total, stride);
    b.setInsertionPointToStart(strideLoop.getBody());
    IRMapping mapping;
    Value rest = strideLoop.getInductionVar();
    int64_t rank = trips.size();
    SmallVector<Value> ivs(rank);
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value position = d == 0 ? rest
                              : arith::RemSIOp::create(b, loc, rest, trips[d])
                                    .getResult();
      if (d > 0)
        rest = arith::DivSIOp::create(b, loc, rest, trips[d]);
      Value scaled =
          arith::MulIOp::create(b, loc, position, loop.getStep()[d]);
      ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
    }
    mapping.map(loop.getInductionVars(), ivs);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
    return flattenAccesses(launch);
  }

  /// Moves `ops` (consecutive, in order) into a one-thread launch. What the
  /// host uses of them (a while condition, a switch index) must be loads
  /// and pure scalar arithmetic on them: those are redone on the host after
  /// the launch, each load a download (the launch has written what it
  /// reads by then); the kernel keeps what it uses itself.
  LogicalResult mapSingleThread(ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
    Block *block = ops.front()->getBlock();
    auto isInside = [&](Operation *user) {
      return inside.contains(block->findAncestorOpInBlock(*user));
    };
    // The host's reads: the ops whose results the host uses, and what
    // they use of the run.
    llvm::SmallPtrSet<Operation *, 8> reads;
    SmallVector<Operation *> worklist;
    for (Operation *op : ops)
      if (llvm::any_of(op->getUsers(),
                       [&](Operation *user) { return !isInside(user); }))
        worklist.push_back(op);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!reads.insert(op).second)
        continue;
      // Redone where it stood: no need to be speculatable (a division).
      if (!isa<memref::LoadOp>(op) &&
          (op->getNumRegions() != 0 || !isMemoryEffectFree(op)))
        return op->emitError("GPU codegen: the host would read a value "
                             "computed from device memory");
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && inside.contains(def))
          worklist.push_back(def);
    }
    // A read sees the buffer as the whole launch left it: nothing in the
    // run may write it after the load.
    for (auto [i, op] : llvm::enumerate(ops)) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (!load || !reads.contains(op))
        continue;
      Value base = baseBuffer(load.getMemRef());
      for (Operation *later : ops.drop_front(i + 1)) {
        WalkResult written = later->walk([&](memref::StoreOp store) {
          return baseBuffer(store.getMemRef()) == base
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        });
        if (written.wasInterrupted())
          return load.emitError("GPU codegen: the host would read a device "
                                "value that the same kernel overwrites "
                                "later");
      }
    }

    OpBuilder b(ops.front());
    Location loc = ops.front()->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::LaunchOp launch = createLaunch(b, loc, one, 1);
    Operation *terminator = launch.getBody().front().getTerminator();
    for (Operation *op : ops)
      op->moveBefore(terminator);

    // The host's copies, after the launch, in program order.
    b.setInsertionPointAfter(launch);
    IRMapping host;
    for (Operation *op : ops) {
      if (!reads.contains(op))
        continue;
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        SmallVector<Value> indices;
        for (Value index : load.getIndices())
          indices.push_back(host.lookupOrDefault(index));
        FailureOr<Value> value = downloadScalar(
            b, load, host.lookupOrDefault(load.getMemRef()), indices);
        if (failed(value))
          return failure();
        host.map(load.getResult(), *value);
        continue;
      }
      b.clone(*op, host);
    }
    for (Operation *op : ops)
      for (Value result : op->getResults())
        if (Value copy = host.lookupOrNull(result))
          result.replaceUsesWithIf(copy, [&](OpOperand &use) {
            return !launch->isAncestor(use.getOwner());
          });
    // Reads the kernel does not use are the host's alone.
    for (Operation *op : llvm::reverse(ops))
      if (reads.contains(op) && op->use_empty())
        op->erase();
    if (&launch.getBody().front().front() == terminator) {
      launch.erase();
      return success();
    }
    return flattenAccesses(launch);
  }

  /// A scalar the host loads from a buffer (a pad value, a 0-d operand)
  /// and a loop nest uses: the load moves to each use inside the nest, so
  /// the kernel reads it from device memory. Nothing writes the buffer in
  /// between: after bufferization a buffer is written by its producer only.
  void sinkScalarLoads(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto load = dyn_cast<memref::LoadOp>(&op);
      if (!load)
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(load->getUses())) {
        Operation *user = use.getOwner();
        if (user->getBlock() == &block)
          continue;
        OpBuilder b(user);
        use.set(b.clone(*load)->getResult(0));
      }
      if (load->use_empty())
        load->erase();
    }
  }

  /// Splits a function body into host ops, parallel loops and runs of
  /// device work for one thread: a run is a maximal sequence of
  /// consecutive ops that touch buffers or use a value of the run (the
  /// loads, arithmetic and store of a 0-d computation).
  LogicalResult mapFunction(func::FuncOp fn) {
    host = hostBuffers(fn);
    if (failed(keepOnHost(fn)))
      return failure();
    for (Block &block : fn.getBody())
      if (failed(mapBlock(block)))
        return failure();
    return success();
  }

  /// Control flow of host code around device work (an rlx.scan's steps,
  /// an rlx.while, an rlx.switch): it stays on the host and its regions
  /// are mapped like a function body, one launch per nest and execution.
  /// A while loop or a switch always does (only rlx control flow makes
  /// them); a for loop or an if only when it holds what a kernel cannot:
  /// parallel nests, launches, allocations or calls. Other loops (a full
  /// reduction) run in one thread.
  static bool isHostControlFlow(Operation *op) {
    if (isa<scf::WhileOp, scf::IndexSwitchOp>(op))
      return true;
    if (!isa<scf::ForOp, scf::IfOp>(op))
      return false;
    return op
        ->walk([](Operation *nested) {
          return isa<scf::ParallelOp, gpu::LaunchOp, memref::AllocOp,
                     memref::DeallocOp, func::CallOp>(nested)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  LogicalResult mapBlock(Block &block) {
    {
      sinkScalarLoads(block);
      SmallVector<Operation *> ops;
      for (Operation &op : block)
        ops.push_back(&op);
      SmallVector<Operation *> run;
      llvm::SmallPtrSet<Operation *, 8> inRun;
      auto flush = [&]() -> LogicalResult {
        if (run.empty())
          return success();
        LogicalResult result = mapSingleThread(run);
        run.clear();
        inRun.clear();
        return result;
      };
      for (Operation *op : ops) {
        if (isa<linalg::LinalgOp>(op))
          return op->emitError("GPU codegen: linalg op left after loop "
                               "lowering");
        if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
          // Built earlier (rlx-gpu-tile-matmul): only its buffers change.
          if (failed(flush()) || failed(flattenAccesses(launch)))
            return failure();
          continue;
        }
        if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
          if (failed(flush()) || failed(mapParallel(loop)))
            return failure();
          continue;
        }
        if (isHostControlFlow(op)) {
          if (failed(flush()))
            return failure();
          for (Region &region : op->getRegions())
            for (Block &body : region)
              if (failed(mapBlock(body)))
                return failure();
          continue;
        }
        bool usesRun = llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && inRun.contains(def);
        });
        if (!op->hasTrait<OpTrait::IsTerminator>() &&
            (usesRun || touchesBuffers(op, host))) {
          run.push_back(op);
          inRun.insert(op);
          continue;
        }
        if (failed(flush()))
          return failure();
      }
      if (failed(flush()))
        return failure();
    }
    return success();
  }

  /// Every memref.alloc of a GPU entry point becomes device memory, which
  /// the host cannot touch: host buffers (small, static bookkeeping) become
  /// stack allocations at the function's entry instead, once for the whole
  /// call (a loop's iterations each use them between their own writes and
  /// reads, so one buffer serves them all).
  LogicalResult keepOnHost(func::FuncOp fn) {
    Block &entry = fn.getBody().front();
    llvm::SmallPtrSet<Operation *, 8> moved;
    for (Operation *op : host) {
      auto alloc = cast<memref::AllocOp>(op);
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return alloc.emitError("GPU codegen: a host buffer of dynamic "
                               "shape");
      OpBuilder b(&entry, entry.begin());
      auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), type);
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(alloca.getResult());
      alloc.erase();
      moved.insert(alloca);
    }
    host = std::move(moved);
    return success();
  }

  /// The host buffers of the function being mapped.
  llvm::SmallPtrSet<Operation *, 8> host;

  void runOnOperation() override {
    // Functions the entry points call (the deallocation pipeline's
    // dealloc_helper) are host code through and through.
    llvm::DenseSet<StringRef> called;
    getOperation().walk(
        [&](func::CallOp call) { called.insert(call.getCallee()); });
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && !called.contains(fn.getSymName()) &&
          failed(mapFunction(fn)))
        return signalPassFailure();
  }
};

} // namespace

//===- StackLoopBuffers.cpp - Small per-iteration buffers on the stack ----===//
///
/// \file
/// A kernel that needs a scratch buffer per tile (the im2col rows of a
/// convolution's row tile, a decoded weight block) allocates and frees it
/// in each iteration of its loop. Through the runtime's allocation hook
/// every such buffer is a malloc and a free, each also recorded under a
/// lock so a failing call can free what it holds: with two threads taking
/// 8-row tiles, a 7x7 convolution spent a fifth of its time in that lock
/// and ran no faster than on one thread. A buffer of static shape, at most
/// kMaxStackBufferBytes, made and freed in one block inside a loop becomes
/// a stack allocation instead, between a stack save at its allocation and
/// a restore at its free: each iteration (on whichever thread runs it)
/// takes and returns the same stack bytes, and nothing is locked.
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUSTACKLOOPBUFFERS
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// The largest buffer moved to the stack: well within a thread's stack
/// (libomp's workers get 4 MiB), and an L1-sized tile's scratch.
constexpr int64_t kMaxStackBufferBytes = 64 * 1024;

/// A buffer to move: its allocation and its one free, in one block.
struct LoopBuffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
};

/// `alloc`'s free, if it qualifies (see the file comment).
std::optional<LoopBuffer> matchLoopBuffer(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !alloc.getSymbolOperands().empty() || type.getMemorySpace() != nullptr ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  if (bytes > kMaxStackBufferBytes)
    return std::nullopt;
  // Inside a loop of its function (an scf loop, or a parallel loop's
  // omp.loop_nest): outside one it is allocated once per call, and a stack
  // buffer there gains nothing.
  bool inLoop = false;
  for (Operation *op = alloc->getParentOp(); op && !inLoop;
       op = op->getParentOp())
    inLoop = isa<LoopLikeOpInterface, omp::LoopNestOp>(op);
  if (!inLoop)
    return std::nullopt;
  memref::DeallocOp dealloc;
  for (Operation *user : alloc->getUsers()) {
    auto free = dyn_cast<memref::DeallocOp>(user);
    if (!free)
      continue;
    if (dealloc || free->getBlock() != alloc->getBlock() ||
        !alloc->isBeforeInBlock(free))
      return std::nullopt;
    dealloc = free;
  }
  if (!dealloc)
    return std::nullopt;
  return LoopBuffer{alloc, dealloc};
}

/// Whether two buffers' lifetimes in one block are disjoint or nested, as
/// stack saves and restores must be.
bool nestsWith(const LoopBuffer &a, const LoopBuffer &b) {
  auto before = [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  };
  bool disjoint = before(a.dealloc, b.alloc) || before(b.dealloc, a.alloc);
  bool aInB = before(b.alloc, a.alloc) && before(a.dealloc, b.dealloc);
  bool bInA = before(a.alloc, b.alloc) && before(b.dealloc, a.dealloc);
  return disjoint || aInB || bInA;
}

struct RLXCPUStackLoopBuffersPass
    : mlir::rlx::impl::RLXCPUStackLoopBuffersBase<RLXCPUStackLoopBuffersPass> {
  void runOnOperation() override {
    // Per block, buffers whose lifetimes nest with those taken before.
    llvm::MapVector<Block *, SmallVector<LoopBuffer>> taken;
    getOperation()->walk([&](memref::AllocOp alloc) {
      std::optional<LoopBuffer> buffer = matchLoopBuffer(alloc);
      if (!buffer)
        return;
      SmallVector<LoopBuffer> &inBlock = taken[alloc->getBlock()];
      if (llvm::all_of(inBlock, [&](const LoopBuffer &other) {
            return nestsWith(*buffer, other);
          }))
        inBlock.push_back(*buffer);
    });
    auto pointer = LLVM::LLVMPointerType::get(&getContext());
    for (auto &[block, buffers] : taken) {
      for (LoopBuffer &buffer : buffers) {
        Location loc = buffer.alloc.getLoc();
        OpBuilder b(buffer.alloc);
        Value saved = LLVM::StackSaveOp::create(b, loc, pointer);
        auto alloca = memref::AllocaOp::create(b, loc, buffer.alloc.getType(),
                                               buffer.alloc.getAlignmentAttr());
        buffer.alloc.getResult().replaceAllUsesWith(alloca.getResult());
        buffer.alloc.erase();
        b.setInsertionPoint(buffer.dealloc);
        LLVM::StackRestoreOp::create(b, loc, saved);
        buffer.dealloc.erase();
      }
    }
  }
};

} // namespace

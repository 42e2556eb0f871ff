//===- SourceLimits.h - Limits on MLIR text before it is parsed -*- C++ -*-===//
///
/// \file
/// MLIR's parser recurses once per nesting level of attributes and types;
/// an attribute nested 10,000 deep overflowed the stack of rlxc and rlx-opt
/// with no message. The tools check the text first and refuse it with a
/// located error.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_SOURCELIMITS_H
#define RLX_CODEGEN_SOURCELIMITS_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::rlx {

/// The deepest nesting rlxc and rlx-opt accept: far beyond real models,
/// and well within the stack of the parser and of the passes that recurse
/// over nested attributes.
constexpr unsigned kMaxNestingDepth = 1000;

/// The offset of the first bracket of `text` (`(`, `[`, `{`, `<`) that
/// opens level `maxDepth + 1`, outside string literals and `//` comments;
/// std::nullopt when none does. `>` closes only a `<` (so `->` and `>=` do
/// not count) and a `)`, `]` or `}` also closes any `<` left open inside.
std::optional<size_t> findNestingDeeperThan(llvm::StringRef text,
                                            unsigned maxDepth);

/// Fails, printing `file:line:col: error: nesting deeper than N` for the
/// first bracket too deep to `os`, when `buffer` nests beyond `maxDepth`.
LogicalResult checkNestingDepth(const llvm::MemoryBuffer &buffer,
                                llvm::raw_ostream &os,
                                unsigned maxDepth = kMaxNestingDepth);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_SOURCELIMITS_H

//===- SourceLimits.cpp - Limits on MLIR text before it is parsed ---------===//
///
/// \file
/// A lexical scan, linear in the text, that knows just enough of MLIR's
/// syntax (string literals, comments, `->`) to count bracket nesting.
///
//===----------------------------------------------------------------------===//

#include "codegen/SourceLimits.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

std::optional<size_t> mlir::rlx::findNestingDeeperThan(llvm::StringRef text,
                                                       unsigned maxDepth) {
  llvm::SmallVector<char> open;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      // A string literal ends at its closing quote or, unterminated, at the
      // end of the line, as MLIR's lexer has it.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        while (i < e && text[i] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      open.push_back(c);
      if (open.size() > maxDepth)
        return i;
      break;
    case '>':
      if (!open.empty() && open.back() == '<' && !(i > 0 && text[i - 1] == '-'))
        open.pop_back();
      break;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      while (!open.empty() && open.back() == '<')
        open.pop_back();
      if (!open.empty() && open.back() == opener)
        open.pop_back();
      break;
    }
    default:
      break;
    }
  }
  return std::nullopt;
}

LogicalResult mlir::rlx::checkNestingDepth(const llvm::MemoryBuffer &buffer,
                                           llvm::raw_ostream &os,
                                           unsigned maxDepth) {
  std::optional<size_t> offset =
      findNestingDeeperThan(buffer.getBuffer(), maxDepth);
  if (!offset)
    return success();
  // Only the position: the line itself may be megabytes of brackets.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(buffer.getBufferStart() + *offset));
  os << buffer.getBufferIdentifier() << ":" << line << ":" << column
     << ": error: nesting deeper than " << maxDepth
     << " (brackets, braces, parentheses, angle brackets)\n";
  return failure();
}

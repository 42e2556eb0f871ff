//===- OpList.cpp - The ops of the rlx dialect, from ODS ------------------===//

#include "OpList.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace rlx::e2e {

const std::vector<DialectOp> &dialectOps() {
  static const std::vector<DialectOp> ops = [] {
    std::ifstream in(RLX_OPS_DECL_INC);
    if (!in)
      throw std::runtime_error("cannot read " + std::string(RLX_OPS_DECL_INC));
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    // `class AddOp : public ::mlir::Op<AddOp, traits...> {`, and later in
    // that class `return ::llvm::StringLiteral("rlx.add");`.
    std::regex classDecl(R"re(\nclass (\w+) : public ::mlir::Op<\w+,([^\n]*)> \{)re");
    std::regex opName(R"re(getOperationName\(\) \{\s*return ::llvm::StringLiteral\("rlx\.(\w+)"\))re");
    std::vector<DialectOp> result;
    auto begin = std::sregex_iterator(text.begin(), text.end(), classDecl);
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      DialectOp op;
      op.cppClass = (*it)[1];
      std::string traits = (*it)[2];
      op.differentiable =
          traits.find("DifferentiableOpInterface::Trait") != std::string::npos;
      op.symbolUser =
          traits.find("SymbolUserOpInterface::Trait") != std::string::npos;
      std::smatch name;
      std::string rest = text.substr(it->position() + it->length());
      if (!std::regex_search(rest, name, opName))
        throw std::runtime_error("no operation name after class " +
                                 op.cppClass + " in " RLX_OPS_DECL_INC);
      op.name = name[1];
      result.push_back(op);
    }
    if (result.empty())
      throw std::runtime_error("no op found in " RLX_OPS_DECL_INC);
    return result;
  }();
  return ops;
}

} // namespace rlx::e2e

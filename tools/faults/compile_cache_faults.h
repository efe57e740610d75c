// The fault matrix's compile cache rows (issue 34): a shared Inductor cache damaged, made by another torch or on
// another machine, or a user's folder tune never wrote, each met by a real `tune trial` (bert-tiny, batch 8).
#pragma once
#include <ostream>
#include <vector>

#include "tools/faults/fault_cases.h"

namespace tune::faults {

std::vector<FaultRow> compile_cache_faults(const MatrixContext& context, std::ostream& progress);

}  // namespace tune::faults

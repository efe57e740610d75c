// The executor a sweep file names: the one place that maps `executor:` to a class.
// Adding one (e.g. a Kubernetes job) is a new file and a line here.
#include "sweep/executor.h"

#include "sweep/local_executor.h"
#include "sweep/slurm_executor.h"
#include "util/check.h"

namespace tune {

std::unique_ptr<Executor> make_executor(const SweepSpec& spec, const std::string& tune_executable) {
  if (spec.executor == "slurm") return std::make_unique<SlurmExecutor>(spec, tune_executable);
  TUNE_CHECK(spec.executor == "local", "read_sweep_spec admits local and slurm only");
  return std::make_unique<LocalExecutor>(spec, tune_executable);
}

}  // namespace tune

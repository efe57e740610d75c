// One tune process at a time measures a given trial of a database: another running the same study waits for it
// and then reuses its result, so identical concurrent searches never measure a trial twice nor share its folder.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace tune {

class TrialLock {
 public:
  // Takes the lock of (study_id, config_key) of the database at db_path: a byte of the file `<db_path>-lock`,
  // locked with an open-file-description lock, which the kernel releases when the holder dies (kill -9 leaves
  // no stale lock). When another process holds it, says so on `progress` and waits, polling for a stop
  // request (util/stop_signals.h: throws StopRequested). A lock file that cannot be created: no lock.
  TrialLock(const std::string& db_path, int64_t study_id, const std::string& config_key, std::ostream& progress);
  ~TrialLock();
  TrialLock(const TrialLock&) = delete;
  TrialLock& operator=(const TrialLock&) = delete;
  // Whether another process held it first (its result may be in the store now).
  bool waited() const { return waited_; }

 private:
  int fd_ = -1;
  bool waited_ = false;
};

}  // namespace tune

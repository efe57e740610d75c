// The trial lock as a one-byte fcntl OFD lock at an offset hashed from the trial's identity, in one file per
// database; polled rather than blocking so that Ctrl-C still stops a process that waits.
#include "store/trial_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "util/hash.h"
#include "util/stop_signals.h"

namespace tune {
namespace {

bool try_lock(int fd, off_t offset) {
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = offset;
  lock.l_len = 1;
  return fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

}  // namespace

TrialLock::TrialLock(const std::string& db_path, int64_t study_id, const std::string& config_key,
                     std::ostream& progress) {
  if (db_path.empty() || db_path == ":memory:") return;
  fd_ = open((db_path + "-lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  // 2^40 offsets: two different trials share a byte (and so wait for each other) with negligible odds.
  const off_t offset =
      static_cast<off_t>(stable_hash_value(std::to_string(study_id) + "/" + config_key) & ((1ULL << 40) - 1));
  if (try_lock(fd_, offset)) return;
  waited_ = true;
  progress << "(another tune process on this database is running this trial: waiting for it) " << std::flush;
  while (!try_lock(fd_, offset)) {
    if (stop_signal() != 0) {
      close(fd_);
      fd_ = -1;
      throw StopRequested{stop_signal()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TrialLock::~TrialLock() {
  if (fd_ >= 0) close(fd_);  // closing the description releases its lock
}

}  // namespace tune

// Data-parallel training's gradient all-reduce, as DistributedDataParallel does it, for the libtorch steps: the
// parameters in buckets of up to bucket_bytes, in reverse order of registration (roughly the order backward makes
// their gradients); each parameter's hook copies its gradient into its bucket's flat buffer as backward makes it,
// and a bucket whose every gradient arrived is all-reduced asynchronously while backward goes on (overlapped where
// the process group runs it on threads of its own: gloo does); after backward the step waits for every bucket and
// writes the averaged gradients back, before the optimizer's update (TrainStep::set_gradient_sync).
#pragma once
#include <torch/torch.h>

#include <memory>
#include <vector>

namespace c10d {
class Backend;
class Work;
}  // namespace c10d

namespace tune {

class GradientReducer {
 public:
  // `group` runs the all-reduce (gloo on CPU, NCCL on CUDA); its size is the number of ranks.
  GradientReducer(std::vector<torch::Tensor> parameters, c10::intrusive_ptr<c10d::Backend> group, int64_t bucket_bytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // After backward: launches any bucket whose gradients did not all arrive (an unused parameter's count as zero),
  // waits for every bucket, and writes the mean over ranks into each parameter's grad. Throws what the group
  // throws (a peer gone, a collective timed out).
  void synchronize();
  // Rank 0's parameters to every rank, as DDP does when it wraps a module (the ranks start from one model).
  void broadcast_parameters();
  // The seconds the last synchronize held the step up: the communication the backward did not hide (on CUDA, the
  // compute stream's own wait, timed by events).
  double exposed_seconds() const { return exposed_seconds_; }
  int buckets() const { return static_cast<int>(buckets_.size()); }

 private:
  struct Bucket;
  void on_gradient(size_t bucket, size_t slot, const torch::Tensor& grad);
  void launch(Bucket& bucket);

  std::vector<torch::Tensor> parameters_;
  c10::intrusive_ptr<c10d::Backend> group_;
  std::vector<std::unique_ptr<Bucket>> buckets_;
  double exposed_seconds_ = 0;
};

}  // namespace tune

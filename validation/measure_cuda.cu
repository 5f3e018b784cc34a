// hs_measure_cuda: times cuBLAS SGEMM (a grid of 256 to 8192, and the GEMMs a transformer runs: linear layers
// as torch.nn.Linear calls cuBLAS, and attention's batched products), simple kernels (elementwise,
// reduction, softmax) and memory copies (host-to-device and device-to-host with pinned memory,
// device-to-device) on GPU 0, and writes the same heterosim-measurements JSON as the CPU program (flops and
// bytes in the same conventions, see kernel_shapes.hpp). Where the driver's NVML library loads, it also
// records the driver version, the board's enforced power limit and the SM clock the GPU holds while it runs
// SGEMM back to back: what the size-aware model reads (sim/wave_model.hpp).
//   hs_measure_cuda --out FILE [--quick] [--force]
#include "utc_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                                                        \
  do {                                                                                                       \
    cudaError_t err_ = (x);                                                                                  \
    if (err_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "hs_measure_cuda: %s: %s\n", #x, cudaGetErrorString(err_));                       \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)
#define CHECK_CUBLAS(x)                                                                                      \
  do {                                                                                                       \
    cublasStatus_t st_ = (x);                                                                                \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                      \
      std::fprintf(stderr, "hs_measure_cuda: %s failed (status %d)\n", #x, static_cast<int>(st_));           \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

struct Point {
  std::string kind, label, shape_json;
  double flops, bytes;
  int repeats;
  double p50, p95;
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// One warm-up, then at least 5 timed runs (CUDA events), more for short kernels up to `budget` seconds.
template <class F> Point time_kernel(F&& run, double budget) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  run();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> times;
  double spent = 0;
  while (times.size() < 5 || (spent < budget && times.size() < 1000)) {
    CHECK_CUDA(cudaEventRecord(a));
    run();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms * 1e-3);
    spent += ms * 1e-3;
  }
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  Point p{};
  p.repeats = static_cast<int>(times.size());
  p.p50 = percentile(times, 0.5);
  p.p95 = percentile(times, 0.95);
  return p;
}

__global__ void add_kernel(const float* a, const float* b, float* c, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    c[i] = a[i] + b[i];
}

__global__ void sum_kernel(const float* a, float* out, long long n) {
  __shared__ float partial[256];
  float s = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    s += a[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

// One block per row of `cols` values.
__global__ void softmax_kernel(const float* x, float* y, int cols) {
  __shared__ float red[256];
  const float* row = x + static_cast<long long>(blockIdx.x) * cols;
  float* out = y + static_cast<long long>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    m = fmaxf(m, row[i]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    s += __expf(row[i] - m);
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  s = red[0];
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[i] = __expf(row[i] - m) / s;
}

std::string q(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += (c == '\n') ? ' ' : c;
  }
  return o + "\"";
}

int cores_per_sm(int major, int minor) {
  if (major == 7) return 64;                    // Volta, Turing
  if (major == 8) return minor == 0 ? 64 : 128; // A100: 64; GA10x, AD10x: 128
  return 128;                                   // Hopper, Blackwell
}

// The driver's NVML, loaded at run time (it ships with the driver, not the toolkit): what a datasheet does
// not say about this board. Empty fields where it does not load.
struct BoardFacts {
  std::string driver;
  double power_limit_w = 0, max_sm_clock_mhz = 0, sm_clock_under_sgemm_mhz = 0, power_under_sgemm_w = 0;
};

class Nvml {
public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib_) return;
    init_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    by_bus_ = reinterpret_cast<int (*)(const char*, void**)>(dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    driver_ = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib_, "nvmlSystemGetDriverVersion"));
    limit_ = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(lib_, "nvmlDeviceGetEnforcedPowerLimit"));
    clock_ = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    max_clock_ = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetMaxClockInfo"));
    power_ = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(lib_, "nvmlDeviceGetPowerUsage"));
    ok_ = init_ && by_bus_ && driver_ && limit_ && clock_ && max_clock_ && power_ && init_() == 0;
  }
  bool open(int cuda_device) {
    char bus[32] = {};
    if (!ok_ || cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) return false;
    return by_bus_(bus, &device_) == 0;
  }
  void static_facts(BoardFacts& f) const {
    char text[96] = {};
    unsigned v = 0;
    if (driver_(text, sizeof text) == 0) f.driver = text;
    if (limit_(device_, &v) == 0) f.power_limit_w = v / 1000.0;
    if (max_clock_(device_, kSmClock, &v) == 0) f.max_sm_clock_mhz = v;
  }
  void load_facts(BoardFacts& f) const { // while the GPU is busy
    unsigned v = 0;
    if (clock_(device_, kSmClock, &v) == 0) f.sm_clock_under_sgemm_mhz = v;
    if (power_(device_, &v) == 0) f.power_under_sgemm_w = v / 1000.0;
  }

private:
  static constexpr int kSmClock = 1; // NVML_CLOCK_SM
  void* lib_ = nullptr;
  void* device_ = nullptr;
  bool ok_ = false;
  int (*init_)() = nullptr;
  int (*by_bus_)(const char*, void**) = nullptr;
  int (*driver_)(char*, unsigned) = nullptr;
  int (*limit_)(void*, unsigned*) = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*max_clock_)(void*, int, unsigned*) = nullptr;
  int (*power_)(void*, unsigned*) = nullptr;
};

// The cuDNN a framework on this machine would load (cudnnGetVersion, by dlopen: the program does not link
// it), 0 where none loads: with the driver and the runtime it is the software stack the learned model reads
// (sim/learned_model.hpp). cuDNN 9 numbers itself major x 10000 + minor x 100 + patch, 8 and before x 1000.
long cudnn_version() {
  for (const char* name : {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"}) {
    void* lib = dlopen(name, RTLD_NOW);
    if (!lib) continue;
    const auto get = reinterpret_cast<std::size_t (*)()>(dlsym(lib, "cudnnGetVersion"));
    if (get) return static_cast<long>(get());
  }
  return 0;
}

// The clock and power a board holds under SGEMM: 4096^3 SGEMMs queued for about two seconds, sampled after
// one, when the clock has settled to what the power limit allows.
void measure_board_under_load(cublasHandle_t blas, const float* a, const float* b, float* c, const Nvml& nvml,
                              BoardFacts& f) {
  const int n = 4096;
  const float one = 1.0f, zero = 0.0f;
  cudaEvent_t s, e;
  CHECK_CUDA(cudaEventCreate(&s));
  CHECK_CUDA(cudaEventCreate(&e));
  CHECK_CUDA(cudaEventRecord(s));
  CHECK_CUBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
  CHECK_CUDA(cudaEventRecord(e));
  CHECK_CUDA(cudaEventSynchronize(e));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, s, e));
  const int runs = std::max(1, std::min(2000, static_cast<int>(2000.0 / std::max(ms, 0.01f))));
  for (int i = 0; i < runs; ++i)
    CHECK_CUBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
  timespec settle{1, 0};
  nanosleep(&settle, nullptr);
  nvml.load_facts(f);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventDestroy(s));
  CHECK_CUDA(cudaEventDestroy(e));
}

// The dims a workload builder gives the op (sim/graph.hpp): row-major, B stored [n, k] when transposed.
std::string gemm_shape(double batch, int m, int n, int k, bool transposed_b) {
  std::string j = "{";
  if (batch > 1) j += "\"batch\": " + std::to_string(static_cast<long long>(batch)) + ", ";
  return j + "\"k\": " + std::to_string(k) + ", \"m\": " + std::to_string(m) +
         ", \"n\": " + std::to_string(n) + (transposed_b ? ", \"transposed_b\": 1}" : "}");
}

Point gemm_point(Point p, const char* what, double batch, int m, int n, int k, bool transposed_b) {
  p.kind = "gemm";
  p.label = std::string(what) + (batch > 1 ? " batch=" + std::to_string(static_cast<long long>(batch)) : "") +
            " k=" + std::to_string(k) + " m=" + std::to_string(m) + " n=" + std::to_string(n);
  p.shape_json = gemm_shape(batch, m, n, k, transposed_b);
  p.flops = 2.0 * batch * m * n * k;
  p.bytes = 4.0 * batch * (double(m) * k + double(k) * n + double(m) * n);
  return p;
}

// The GEMMs of BERT-large and GPT-2 large as an eager framework runs them, m being tokens: linear layers
// y = x W^T (torch.nn.Linear's cuBLAS call: W transposed), the LM head, and attention's batched products
// over batch x heads (head size 64) at sequence 128 and 512.
void measure_transformer_gemms(cublasHandle_t blas, const float* a, const float* b, float* c, double budget,
                               bool quick, std::vector<Point>& points) {
  const float one = 1.0f, zero = 0.0f;
  // torch.nn.Linear's y = x W^T with x of m tokens: column-major y^T = W x^T, W transposed.
  const auto linear = [&](int m, int n, int k) {
    Point p = time_kernel(
        [&] {
          CHECK_CUBLAS(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, k, a, k, &zero, c, n));
        },
        budget);
    points.push_back(gemm_point(p, "linear", 1, m, n, k, true));
  };
  const int tokens[] = {1, 8, 32, 128, 512, 1024, 2048};
  const int layers[][2] = {{1024, 1024}, {4096, 1024}, {1024, 4096}, // BERT-large: n (out), k (in)
                           {3840, 1280}, {1280, 1280}, {5120, 1280}, {1280, 5120}}; // GPT-2 large
  for (int m : tokens)
    for (const auto& nk : layers)
      if (!quick || m == 128) linear(m, nk[0], nk[1]);
  for (int m : {1, 8, 128}) // GPT-2 large's LM head over its 50257-token vocabulary
    linear(m, 50257, 1280);
  const int d = 64;
  for (int batch : {16, 20, 128})
    for (int s : {128, 512}) {
      if (quick && s != 128) continue;
      const long long sd = 1LL * s * d, ss = 1LL * s * s;
      Point scores = time_kernel(
          [&] {
            CHECK_CUBLAS(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, s, s, d, &one, b, d, sd, a,
                                                   d, sd, &zero, c, s, ss, batch));
          },
          budget);
      points.push_back(gemm_point(scores, "bmm", batch, s, s, d, true));
      Point context = time_kernel(
          [&] {
            CHECK_CUBLAS(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_N, d, s, s, &one, b, d, sd, a,
                                                   s, ss, &zero, c, d, sd, batch));
          },
          budget);
      points.push_back(gemm_point(context, "bmm", batch, s, d, s, false));
    }
}

} // namespace

int main(int argc, char** argv) {
  std::string out;
  bool quick = false, force = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--force")
      force = true;
    else if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else {
      std::fprintf(stderr, "usage: hs_measure_cuda --out FILE [--quick] [--force]\n");
      return 2;
    }
  }
  if (out.empty()) {
    std::fprintf(stderr, "hs_measure_cuda: --out FILE is required\n");
    return 2;
  }
  struct stat st {};
  if (!force && stat(out.c_str(), &st) == 0) {
    std::fprintf(stderr, "hs_measure_cuda: %s already exists; pass --force to overwrite\n", out.c_str());
    return 1;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "hs_measure_cuda: no CUDA GPU on this machine; nothing measured\n");
    return 3;
  }
  CHECK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0, runtime = 0, driver = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  int blas_version = 0;
  CHECK_CUBLAS(cublasGetVersion(blas, &blas_version));
  // No TF32: fp32 SGEMM as the CPU measures it.
  CHECK_CUBLAS(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH));

  const double budget = quick ? 0.02 : 0.2;
  std::vector<Point> points;
  const std::size_t max_elems = std::size_t(1) << 26;
  float *a = nullptr, *b = nullptr, *c = nullptr, *scalar = nullptr;
  CHECK_CUDA(cudaMalloc(&a, max_elems * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b, max_elems * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c, max_elems * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&scalar, sizeof(float)));
  CHECK_CUDA(cudaMemset(a, 0, max_elems * sizeof(float)));
  CHECK_CUDA(cudaMemset(b, 0, max_elems * sizeof(float)));

  const int dims[] = {256, 512, 1024, 2048, 4096, 8192};
  for (int m : dims)
    for (int n : dims)
      for (int k : dims) {
        if (quick && !(m == n && n == k)) continue;
        if (static_cast<std::size_t>(m) * k > max_elems || static_cast<std::size_t>(k) * n > max_elems ||
            static_cast<std::size_t>(m) * n > max_elems)
          continue;
        if (!(m == n && n == k) && ((m + n + k) % 3 != 0)) continue; // a thinned grid of rectangles
        const float one = 1.0f, zero = 0.0f;
        Point p = time_kernel(
            [&] {
              CHECK_CUBLAS(
                  cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c, m));
            },
            budget);
        p.kind = "gemm";
        p.label = "gemm k=" + std::to_string(k) + " m=" + std::to_string(m) + " n=" + std::to_string(n);
        p.shape_json = gemm_shape(1, n, m, k, false); // column-major C = A B is the row-major C^T = B^T A^T
        p.flops = 2.0 * m * n * k;
        p.bytes = 4.0 * (double(m) * k + double(k) * n + double(m) * n);
        points.push_back(p);
      }
  measure_transformer_gemms(blas, a, b, c, budget, quick, points);
  BoardFacts board;
  Nvml nvml;
  if (nvml.open(0)) {
    nvml.static_facts(board);
    measure_board_under_load(blas, a, b, c, nvml, board);
  }
  for (int e = 12; e <= 26; e += quick ? 2 : 1) {
    const long long n = 1LL << e;
    Point p = time_kernel([&] { add_kernel<<<1024, 256>>>(a, b, c, n); }, budget);
    p.kind = "elementwise";
    p.label = "elementwise n=" + std::to_string(n);
    p.shape_json = "{\"n\": " + std::to_string(n) + "}";
    p.flops = double(n);
    p.bytes = 12.0 * double(n);
    points.push_back(p);
    Point r = time_kernel([&] { sum_kernel<<<1024, 256>>>(a, scalar, n); }, budget);
    r.kind = "reduction";
    r.label = "reduction n=" + std::to_string(n);
    r.shape_json = p.shape_json;
    r.flops = double(n);
    r.bytes = 4.0 * double(n) + 4.0;
    points.push_back(r);
  }
  for (int e = 2; e <= 16; e += quick ? 2 : 1) {
    const int rows = 1 << e, cols = 1024;
    Point p = time_kernel([&] { softmax_kernel<<<rows, 256>>>(a, c, cols); }, budget);
    p.kind = "softmax";
    p.label = "softmax cols=1024 rows=" + std::to_string(rows);
    p.shape_json = "{\"cols\": 1024, \"rows\": " + std::to_string(rows) + "}";
    p.flops = 5.0 * rows * cols;
    p.bytes = 8.0 * rows * cols;
    points.push_back(p);
  }
  void *host_in = nullptr, *host_out = nullptr;
  const std::size_t max_bytes = max_elems * sizeof(float);
  CHECK_CUDA(cudaMallocHost(&host_in, max_bytes));
  CHECK_CUDA(cudaMallocHost(&host_out, max_bytes));
  for (int e = 12; e <= 28; e += quick ? 2 : 1) {
    const std::size_t bytes = std::size_t(1) << e;
    struct Copy {
      const char* kind;
      void* dst;
      const void* src;
      cudaMemcpyKind dir;
      double moved;
    } copies[] = {
        {"copy_h2d", a, host_in, cudaMemcpyHostToDevice, double(bytes)},
        {"copy_d2h", host_out, a, cudaMemcpyDeviceToHost, double(bytes)},
        {"copy", b, a, cudaMemcpyDeviceToDevice, 2.0 * double(bytes)}}; // d2d: read + written, as on the CPU
    for (const auto& cp : copies) {
      Point p = time_kernel([&] { CHECK_CUDA(cudaMemcpyAsync(cp.dst, cp.src, bytes, cp.dir)); }, budget);
      p.kind = cp.kind;
      p.label = std::string(cp.kind) + " bytes=" + std::to_string(bytes);
      p.shape_json = "{\"bytes\": " + std::to_string(bytes) + "}";
      p.flops = 0;
      p.bytes = cp.moved;
      points.push_back(p);
    }
  }

  const double peak =
      double(prop.multiProcessorCount) * cores_per_sm(prop.major, prop.minor) * clock_khz * 1e3 * 2;
  const double bandwidth = 2.0 * mem_clock_khz * 1e3 * bus_bits / 8.0;
  std::ostringstream j;
  j << "{\n \"format\": \"heterosim-measurements\",\n \"version\": 1,\n \"device\": \"gpu0\",\n "
       "\"device_kind\": \"gpu\",\n";
  j << " \"environment\": {\n";
  j << "  \"gpu_model\": " << q(prop.name) << ",\n";
  j << "  \"compute_capability\": \"" << prop.major << "." << prop.minor << "\",\n";
  j << "  \"multiprocessors\": \"" << prop.multiProcessorCount << "\",\n";
  j << "  \"clock_khz\": \"" << clock_khz << "\",\n";
  j << "  \"memory_clock_khz\": \"" << mem_clock_khz << "\",\n";
  j << "  \"memory_bus_bits\": \"" << bus_bits << "\",\n";
  j << "  \"cuda_runtime\": \"" << runtime << "\",\n  \"cuda_driver\": \"" << driver << "\",\n";
  j << "  \"cublas\": \"" << blas_version << "\",\n";
  if (!board.driver.empty()) j << "  \"nvidia_driver\": " << q(board.driver) << ",\n";
  if (const long cudnn = cudnn_version(); cudnn > 0) j << "  \"cudnn\": \"" << cudnn << "\",\n";
  const auto fact = [&](const char* key, double v) {
    if (v > 0) j << "  \"" << key << "\": \"" << v << "\",\n";
  };
  fact("power_limit_w", board.power_limit_w); // NVML: enforced power limit
  fact("max_sm_clock_mhz", board.max_sm_clock_mhz);
  fact("sm_clock_under_sgemm_mhz", board.sm_clock_under_sgemm_mhz);
  fact("power_under_sgemm_w", board.power_under_sgemm_w);
  if (board.sm_clock_under_sgemm_mhz > 0)
    j << "  \"board_source\": \"NVML (libnvidia-ml.so.1): driver version, enforced power limit, maximum SM "
         "clock; SM clock and power sampled after 1 s of 4096^3 SGEMMs back to back\",\n";
  j << "  \"compiler\": \"nvcc " << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << "\",\n";
  j << "  \"math_mode\": \"CUBLAS_PEDANTIC_MATH (fp32, no TF32)\",\n";
  j << "  \"timing\": \"cudaEvent around each run; one warm-up, then at least 5 runs (more for short "
       "kernels)\",\n";
  j << "  \"fp32_flops_source\": \"derived: SMs x FP32 cores per SM (by compute capability) x clock "
       "(cudaDevAttrClockRate) x 2\",\n";
  j << "  \"memory_bandwidth_source\": \"derived: 2 x memory clock (cudaDevAttrMemoryClockRate) x bus width "
       "/ 8\",\n";
  j << "  \"date\": \"" << hs::validation::utc_now() << "\"\n },\n";
  j << " \"peaks\": {\"fp32_flops\": " << peak << ", \"memory_bandwidth\": " << bandwidth << "},\n";
  j << " \"points\": [\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    char nums[256];
    std::snprintf(nums, sizeof nums,
                  "\"flops\": %.17g, \"bytes\": %.17g, \"repeats\": %d, \"p50_s\": %.9g, \"p95_s\": %.9g",
                  p.flops, p.bytes, p.repeats, p.p50, p.p95);
    j << "  {\"kind\": " << q(p.kind) << ", \"label\": " << q(p.label) << ", \"shape\": " << p.shape_json
      << ", " << nums << "}" << (i + 1 < points.size() ? "," : "") << "\n";
  }
  j << " ]\n}\n";
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.str();
    if (!f) {
      std::fprintf(stderr, "hs_measure_cuda: cannot write %s\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::fprintf(stderr, "hs_measure_cuda: cannot rename %s to %s\n", tmp.c_str(), out.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s (%zu points on %s)\n", out.c_str(), points.size(), prop.name);
  cublasDestroy(blas);
  return 0;
}

// CUB's multi-channel histograms on the bench's data shape: n random RGBA8 pixels;
// four channels of 256 even bins over [0, 256), or R, G, B of 64 bins between edges 0, 4, ..., 256.
// Build and run on the GPU machine (sizes as log2 of the pixel count, the first argument the runs):
//   nvcc -O3 -arch=sm_90 -o /tmp/cub_channels scripts/cub_channels.cu && /tmp/cub_channels 20 20 26
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)
int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20;
  for (int a = 2; a < argc; a++) {
    int lg = atoi(argv[a]); size_t n = (size_t)1 << lg;
    unsigned char *px, *cp; CK(cudaMalloc(&px, 4 * n)); CK(cudaMalloc(&cp, 4 * n));
    std::vector<unsigned char> h(4 * n); unsigned long long s = 0x9FB21C651E98DF25ull;
    for (size_t i = 0; i < 4 * n; i++) { s = s * 6364136223846793005ull + 1442695040888963407ull; h[i] = s >> 56; }
    CK(cudaMemcpy(px, h.data(), 4 * n, cudaMemcpyHostToDevice));
    int *hist[4]; for (int c = 0; c < 4; c++) CK(cudaMalloc(&hist[c], 256 * sizeof(int)));
    int levels_h[65]; for (int b = 0; b <= 64; b++) levels_h[b] = 4 * b;
    int *lv; CK(cudaMalloc(&lv, sizeof levels_h)); CK(cudaMemcpy(lv, levels_h, sizeof levels_h, cudaMemcpyHostToDevice));
    int nl_even[4] = {257, 257, 257, 257}, lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256};
    int nl_range[3] = {65, 65, 65}; const int *lvs[3] = {lv, lv, lv};
    size_t b1 = 0, b2 = 0; void *tmp = nullptr;
    cub::DeviceHistogram::MultiHistogramEven<4, 4>(nullptr, b1, px, hist, nl_even, lo, hi, (int)n);
    cub::DeviceHistogram::MultiHistogramRange<4, 3>(nullptr, b2, px, hist, nl_range, lvs, (int)n);
    CK(cudaMalloc(&tmp, std::max(b1, b2) + 1));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    auto time = [&](auto f) { std::vector<float> t; f(); cudaDeviceSynchronize();
      for (int r = 0; r < runs; r++) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms); }
      std::sort(t.begin(), t.end()); return t[t.size() / 2]; };
    printf("CUB channels n=2^%d copy %.4fms rgba-even %.4fms rgb-range %.4fms\n", lg,
      time([&] { cudaMemcpyAsync(cp, px, 4 * n, cudaMemcpyDeviceToDevice); }),
      time([&] { cub::DeviceHistogram::MultiHistogramEven<4, 4>(tmp, b1, px, hist, nl_even, lo, hi, (int)n); }),
      time([&] { cub::DeviceHistogram::MultiHistogramRange<4, 3>(tmp, b2, px, hist, nl_range, lvs, (int)n); }));
    cudaFree(px); cudaFree(cp); cudaFree(tmp); cudaFree(lv); for (int c = 0; c < 4; c++) cudaFree(hist[c]);
  }
  return 0;
}

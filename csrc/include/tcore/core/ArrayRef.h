#pragma once
// A non-owning view of a contiguous run of T (like c10::ArrayRef).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace tcore {

template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // by design: valid for the full-expression, as c10's
#endif
  constexpr ArrayRef(std::initializer_list<T> il) : data_(il.begin()), size_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;
using OptionalIntArrayRef = std::optional<IntArrayRef>;

}  // namespace tcore

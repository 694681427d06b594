#pragma once
// Export macro and the checks every kernel uses. A failed check throws one of
// tcore's error types; the Python bindings turn them into Python exceptions.
#include <sstream>
#include <stdexcept>
#include <string>

#if defined(_WIN32)
#define TCORE_API __declspec(dllexport)
#else
#define TCORE_API __attribute__((visibility("default")))
#endif

namespace tcore {

// RuntimeError in Python.
struct TCORE_API Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// ValueError / IndexError / TypeError in Python.
struct TCORE_API ValueError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct TCORE_API IndexError : std::out_of_range {
  using std::out_of_range::out_of_range;
};
struct TCORE_API TypeError : Error {
  using Error::Error;
};
// NotImplementedError in Python (a RuntimeError there too): what a backend cannot do, such as
// reading the data of a meta tensor.
struct TCORE_API NotImplementedError : Error {
  using Error::Error;
};

// torch.linalg.LinAlgError in Python (a RuntimeError): a matrix the factorization cannot take
// (singular, not positive-definite).
struct TCORE_API LinAlgError : Error {
  using Error::Error;
};

// Warnings (UserWarning in Python): the Python module installs a handler; without one they go
// to stderr. A handler may throw (Python's warnings filter "error").
using WarningHandler = void (*)(const std::string& message);
TCORE_API void set_warning_handler(WarningHandler handler);
TCORE_API void warn(const std::string& message);

namespace detail {
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}
}  // namespace detail

}  // namespace tcore

#define TCORE_CHECK_AS(kind, cond, ...) \
  do {                                  \
    if (!(cond)) throw ::tcore::kind(::tcore::detail::str_cat(__VA_ARGS__)); \
  } while (0)
#define TCORE_CHECK(cond, ...) TCORE_CHECK_AS(Error, cond, __VA_ARGS__)
#define TCORE_CHECK_VALUE(cond, ...) TCORE_CHECK_AS(ValueError, cond, __VA_ARGS__)
#define TCORE_CHECK_INDEX(cond, ...) TCORE_CHECK_AS(IndexError, cond, __VA_ARGS__)
#define TCORE_CHECK_TYPE(cond, ...) TCORE_CHECK_AS(TypeError, cond, __VA_ARGS__)
#define TCORE_CHECK_LINALG(cond, ...) TCORE_CHECK_AS(LinAlgError, cond, __VA_ARGS__)

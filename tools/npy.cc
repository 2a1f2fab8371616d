#include "tools/npy.h"

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// NumPy's type strings ("descr") of the dtypes both sides have.
constexpr std::pair<const char*, DataType> kDescrs[] = {
    {"<f2", DT_HALF},   {"<f4", DT_FLOAT},      {"<f8", DT_DOUBLE},    {"|i1", DT_INT8},
    {"<i2", DT_INT16},  {"<i4", DT_INT32},      {"<i8", DT_INT64},     {"|u1", DT_UINT8},
    {"<u2", DT_UINT16}, {"<u4", DT_UINT32},     {"<u8", DT_UINT64},    {"|b1", DT_BOOL},
    {"<c8", DT_COMPLEX64}, {"<c16", DT_COMPLEX128}};

// The value of `key` in the header's dict: a quoted string, a tuple's
// contents or a bare word.
std::string Field(const std::string& header, absl::string_view key) {
  const size_t k = header.find(absl::StrCat("'", key, "'"));
  if (k == std::string::npos) return "";
  size_t v = header.find(':', k);
  if (v == std::string::npos) return "";
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  if (v >= header.size()) return "";
  if (header[v] == '(') {
    const size_t close = header.find(')', v);
    return close == std::string::npos ? "" : header.substr(v + 1, close - v - 1);
  }
  if (header[v] == '\'') {
    const size_t close = header.find('\'', v + 1);
    return close == std::string::npos ? "" : header.substr(v + 1, close - v - 1);
  }
  const size_t end = header.find_first_of(",}", v);
  return std::string(absl::StripAsciiWhitespace(header.substr(v, end - v)));
}

}  // namespace

absl::StatusOr<Tensor> ReadNpy(Env* env, const std::string& path) {
  MG_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(env, path));
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a .npy file NumPy writes: ", why));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("no magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, at;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) {
      header_len |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
    }
    at = 12;
  } else {
    return bad(absl::StrCat("version ", major));
  }
  if (bytes.size() < at + header_len) return bad("truncated header");
  const std::string header = bytes.substr(at, header_len);
  at += header_len;
  if (Field(header, "fortran_order") != "False") return bad("only C order is supported");
  const std::string descr = Field(header, "descr");
  DataType dtype = DT_INVALID;
  for (const auto& [d, t] : kDescrs) {
    if (descr == d) dtype = t;
  }
  if (dtype == DT_INVALID) return bad(absl::StrCat("dtype '", descr, "' is not supported"));
  std::vector<int64_t> dims;
  for (absl::string_view d : absl::StrSplit(Field(header, "shape"), ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &v) || v < 0) {
      return bad(absl::StrCat("shape (", Field(header, "shape"), ")"));
    }
    dims.push_back(v);
  }
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, shape));
  if (bytes.size() - at != t.TotalBytes()) {
    return absl::DataLossError(absl::StrCat(path, " holds ", bytes.size() - at, " bytes of data, ",
                                            "its header says ", t.TotalBytes()));
  }
  if (t.TotalBytes() > 0) std::memcpy(t.raw_data(), bytes.data() + at, t.TotalBytes());
  return t;
}

absl::Status WriteNpy(Env* env, const std::string& path, const Tensor& t) {
  const char* descr = nullptr;
  for (const auto& [d, type] : kDescrs) {
    if (type == t.dtype()) descr = d;
  }
  if (descr == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", DataTypeString(t.dtype()), " tensor has no .npy form (", path, " not written)"));
  }
  std::vector<std::string> dims;
  for (int i = 0; i < t.dims(); ++i) dims.push_back(absl::StrCat(t.dim_size(i)));
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (",
                                    absl::StrJoin(dims, ", "), dims.size() == 1 ? ",), }" : "), }");
  // Padded with spaces and a newline so that the data starts at a multiple
  // of 64 bytes, as NumPy pads it.
  const bool v1 = header.size() + 11 < 65536;
  const size_t prefix = v1 ? 10 : 12;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string out = v1 ? std::string("\x93NUMPY\x01\x00", 8) : std::string("\x93NUMPY\x02\x00", 8);
  const uint32_t len = header.size();
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (!v1) {
    out.push_back(static_cast<char>((len >> 16) & 0xff));
    out.push_back(static_cast<char>(len >> 24));
  }
  out += header;
  out.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  return WriteStringToFile(env, path, out);
}

}  // namespace minigraph

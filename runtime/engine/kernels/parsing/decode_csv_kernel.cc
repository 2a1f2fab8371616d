// DecodeCSV: each record (a line of comma-separated values, RFC 4180 quoting
// when use_quote_delim) into one value per column, of the column's type,
// with the column's default where a field is empty or na_value. The
// messages are TensorFlow's.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// absl's parser for each numeric type DecodeCSV takes.
bool Parse(absl::string_view s, int32_t* v) { return absl::SimpleAtoi(s, v); }
bool Parse(absl::string_view s, int64_t* v) { return absl::SimpleAtoi(s, v); }
bool Parse(absl::string_view s, float* v) { return absl::SimpleAtof(s, v); }
bool Parse(absl::string_view s, double* v) { return absl::SimpleAtod(s, v); }

// Record `i` of `out` from `field`, or from the default when the field is
// missing; false when the field does not parse as a T.
template <typename T>
bool StoreNumber(const std::string& field, bool missing, const Tensor& dflt, int64_t i,
                 Tensor* out) {
  T v;
  if (missing) {
    v = *dflt.data<T>();
  } else if (!Parse(field, &v)) {
    return false;
  }
  out->data<T>()[i] = v;
  return true;
}

class DecodeCsvOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("OUT_TYPE", &types_));
    for (DataType t : types_) {
      if (t != DT_FLOAT && t != DT_DOUBLE && t != DT_INT32 && t != DT_INT64 && t != DT_STRING) {
        return absl::InvalidArgumentError(
            absl::StrCat("DecodeCSV '", c->def().name(), "': OUT_TYPE holds ", DataTypeString(t),
                         "; columns are float, double, int32, int64 or string"));
      }
    }
    std::string delim;
    MG_RETURN_IF_ERROR(c->GetAttr("field_delim", &delim));
    if (delim.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("DecodeCSV '", c->def().name(),
                                                     "': field_delim should be only 1 char, got '",
                                                     delim, "'"));
    }
    delim_ = delim[0];
    MG_RETURN_IF_ERROR(c->GetAttr("use_quote_delim", &quotes_));
    MG_RETURN_IF_ERROR(c->GetAttr("na_value", &na_value_));
    MG_RETURN_IF_ERROR(c->GetAttr("select_cols", &select_cols_));
    for (size_t i = 0; i < select_cols_.size(); ++i) {
      if (select_cols_[i] < 0 || (i > 0 && select_cols_[i] <= select_cols_[i - 1])) {
        return absl::InvalidArgumentError(
            absl::StrCat("DecodeCSV '", c->def().name(),
                         "': select_cols must be non-negative and strictly increasing"));
      }
    }
    if (!select_cols_.empty() && select_cols_.size() != types_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("DecodeCSV '", c->def().name(), "': select_cols has ", select_cols_.size(),
                       " columns but record_defaults ", types_.size()));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& records = ctx->input(0);
    const int n = static_cast<int>(types_.size());
    for (int f = 0; f < n; ++f) {
      const Tensor& d = ctx->input(1 + f);
      if (d.NumElements() > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "There should only be 1 default per field but field ", f, " has ", d.NumElements()));
      }
    }
    std::vector<Tensor*> out(n);
    for (int f = 0; f < n; ++f) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(f, records.shape(), &out[f]));
    }
    std::vector<std::string> fields;
    for (int64_t i = 0; i < records.NumElements(); ++i) {
      MG_RETURN_IF_ERROR(Split(records.data<std::string>()[i], i, &fields));
      if (select_cols_.empty() ? static_cast<int>(fields.size()) != n
                               : static_cast<int64_t>(fields.size()) <= select_cols_.back()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expect ", select_cols_.empty() ? n : select_cols_.back() + 1,
                         select_cols_.empty() ? "" : " or more", " fields but have ", fields.size(),
                         " in record ", i));
      }
      for (int f = 0; f < n; ++f) {
        const std::string& field = fields[select_cols_.empty() ? f : select_cols_[f]];
        MG_RETURN_IF_ERROR(Store(field, ctx->input(1 + f), f, i, out[f]));
      }
    }
    return absl::OkStatus();
  }

 private:
  // The fields of `record` into `fields`.
  absl::Status Split(const std::string& record, int64_t i, std::vector<std::string>* fields) const {
    fields->clear();
    size_t p = 0;
    for (;;) {
      std::string field;
      if (quotes_ && p < record.size() && record[p] == '"') {
        ++p;
        for (;;) {
          if (p >= record.size()) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Quoted field has to end with quote followed by delim or end, in record ", i));
          }
          if (record[p] == '"') {
            if (p + 1 < record.size() && record[p + 1] == '"') {
              field += '"';
              p += 2;
              continue;
            }
            ++p;
            break;
          }
          field += record[p++];
        }
        if (p < record.size() && record[p] != delim_) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Quoted field has to end with quote followed by delim or end, in record ", i));
        }
      } else {
        const size_t stop = std::min(record.find(delim_, p), record.size());
        field = record.substr(p, stop - p);
        if (quotes_ && field.find_first_of("\"\n\r") != std::string::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Unquoted fields cannot have quotes/CRLFs inside, in record ", i, ": ", field));
        }
        p = stop;
      }
      fields->push_back(std::move(field));
      if (p >= record.size()) return absl::OkStatus();
      ++p;  // the delimiter: a field follows, perhaps empty
      if (p == record.size()) {
        fields->emplace_back();
        return absl::OkStatus();
      }
    }
  }

  absl::Status Store(const std::string& field, const Tensor& dflt, int f, int64_t i,
                     Tensor* out) const {
    const bool missing = field.empty() || field == na_value_;
    if (missing && dflt.NumElements() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", f, " is required but missing in record ", i, "!"));
    }
    auto bad = [&](const char* type) {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", f, " in record ", i, " is not a valid ", type, ": ", field));
    };
    switch (types_[f]) {
      case DT_INT32:
        return StoreNumber<int32_t>(field, missing, dflt, i, out) ? absl::OkStatus() : bad("int32");
      case DT_INT64:
        return StoreNumber<int64_t>(field, missing, dflt, i, out) ? absl::OkStatus() : bad("int64");
      case DT_FLOAT:
        return StoreNumber<float>(field, missing, dflt, i, out) ? absl::OkStatus() : bad("float");
      case DT_DOUBLE:
        return StoreNumber<double>(field, missing, dflt, i, out) ? absl::OkStatus() : bad("double");
      default:
        out->data<std::string>()[i] = missing ? *dflt.data<std::string>() : field;
        return absl::OkStatus();
    }
  }

  std::vector<DataType> types_;
  char delim_ = ',';
  bool quotes_ = true;
  std::string na_value_;
  std::vector<int64_t> select_cols_;
};

}  // namespace

void RegisterDecodeCsvKernels(KernelRegistry* r) {
  r->Register("DecodeCSV", MakeFactory<DecodeCsvOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph

//===- Npy.cpp - Reading and writing numpy .npy files ------------------===//

#include "runtime/io/Npy.h"
#include "runtime/io/SafeRead.h"
#include "runtime/io/SafeWrite.h"

#include <cstring>
#include <optional>
#include <fstream>
#include <sstream>

namespace hetc::io {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

uint64_t getLE(const std::string &in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

/// The fields of a .npy header dict.
struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// A parser for the Python dict literal in a .npy header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(Header &header, std::string &error) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!expect('{', error))
      return false;
    while (true) {
      skipSpace();
      if (peek() == '}')
        break;
      std::string key;
      if (!parseString(key, error) || !expect(':', error))
        return false;
      if (key == "descr") {
        if (!parseString(header.descr, error))
          return false;
        seenDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder, error))
          return false;
        seenOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape, error))
          return false;
        seenShape = true;
      } else {
        error = "unexpected key '" + key + "' in the header";
        return false;
      }
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != '}') {
        error = "expected ',' or '}' at header offset " + std::to_string(pos);
        return false;
      }
    }
    ++pos;
    const char *missing = !seenDescr   ? "descr"
                          : !seenOrder ? "fortran_order"
                          : !seenShape ? "shape"
                                       : nullptr;
    if (missing) {
      error = std::string("the header has no '") + missing + "' key";
      return false;
    }
    return true;
  }

private:
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n'))
      ++pos;
  }
  bool expect(char c, std::string &error) {
    skipSpace();
    if (peek() != c) {
      error = std::string("expected '") + c + "' at header offset " +
              std::to_string(pos);
      return false;
    }
    ++pos;
    return true;
  }
  bool parseString(std::string &out, std::string &error) {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"') {
      error =
          "expected a quoted string at header offset " + std::to_string(pos);
      return false;
    }
    size_t end = text.find(quote, pos + 1);
    if (end == std::string::npos) {
      error = "unterminated string in the header";
      return false;
    }
    out = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out, std::string &error) {
    skipSpace();
    if (text.compare(pos, 4, "True") == 0) {
      out = true;
      pos += 4;
      return true;
    }
    if (text.compare(pos, 5, "False") == 0) {
      out = false;
      pos += 5;
      return true;
    }
    error = "'fortran_order' must be True or False";
    return false;
  }
  bool parseShape(std::vector<int64_t> &shape, std::string &error) {
    if (!expect('(', error))
      return false;
    while (true) {
      skipSpace();
      if (peek() == ')')
        break;
      if (peek() < '0' || peek() > '9') {
        error = "'shape' must be a tuple of non-negative integers";
        return false;
      }
      int64_t dim = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (dim > (INT64_MAX - 9) / 10) {
          error = "a 'shape' dimension is too large";
          return false;
        }
        dim = dim * 10 + (text[pos++] - '0');
      }
      if (peek() == 'L')
        ++pos; // Python 2 long suffix.
      shape.push_back(dim);
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != ')') {
        error = "expected ',' or ')' in 'shape'";
        return false;
      }
    }
    ++pos;
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};

/// The element type a numpy dtype string names; BF16 has no numpy dtype.
std::optional<ElementType> typeOfDescr(const std::string &descr) {
  static const std::pair<const char *, ElementType> kTypes[] = {
      {"<f4", ElementType::F32}, {"<f2", ElementType::F16},
      {"|i1", ElementType::I8},  {"<i1", ElementType::I8},
      {"|u1", ElementType::U8},  {"<u1", ElementType::U8},
      {"<i4", ElementType::I32}, {"|b1", ElementType::Bool},
      {"<i8", ElementType::I64}, {"<i2", ElementType::I16},
      {"<u2", ElementType::U16}, {"<u4", ElementType::U32},
      {"<u8", ElementType::U64}, {"<f8", ElementType::F64}};
  for (const auto &[name, type] : kTypes)
    if (descr == name)
      return type;
  return std::nullopt;
}

/// The numpy dtype string of `type`. Numpy has no bfloat16 nor 8- and
/// 4-bit floats: those tensors are written as float32 (exactly), the 4- and
/// 2-bit integers as int8 and uint8.
std::string descrOf(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return "<f2";
  case ElementType::I8:
  case ElementType::I4:
  case ElementType::I2:
    return "|i1";
  case ElementType::U8:
  case ElementType::U4:
  case ElementType::U2:
    return "|u1";
  case ElementType::I32:
    return "<i4";
  case ElementType::I64:
    return "<i8";
  case ElementType::I16:
    return "<i2";
  case ElementType::U16:
    return "<u2";
  case ElementType::U32:
    return "<u4";
  case ElementType::U64:
    return "<u8";
  case ElementType::F64:
    return "<f8";
  case ElementType::Bool:
    return "|b1";
  default:
    return "<f4";
  }
}

/// Decodes `count` little-endian elements of `out.type` into `out`; false
/// (with the elements up to the bad one) for a bool byte other than 0 or 1
/// or an int64 outside the int32 range the chip holds it in.
bool decodeElements(const char *data, uint64_t count, Tensor &out) {
  const auto *bytes = reinterpret_cast<const unsigned char *>(data);
  for (uint64_t i = 0; i < count; ++i) {
    switch (out.type) {
    case ElementType::F32:
    case ElementType::BF16: {
      uint32_t bits = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 |
                      uint32_t(bytes[4 * i + 2]) << 16 |
                      uint32_t(bytes[4 * i + 3]) << 24;
      float value;
      std::memcpy(&value, &bits, 4);
      out.data.push_back(value);
      break;
    }
    case ElementType::F16:
      out.data.push_back(
          halfValue(uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8)));
      break;
    case ElementType::F64: {
      // Held as fp32 on the chip: rounded to nearest even here.
      uint64_t bits = 0;
      for (int b = 7; b >= 0; --b)
        bits = bits << 8 | bytes[8 * i + b];
      double value;
      std::memcpy(&value, &bits, 8);
      out.data.push_back(float(value));
      break;
    }
    case ElementType::I8:
      out.ints.push_back(int8_t(bytes[i]));
      break;
    case ElementType::U8:
      out.ints.push_back(bytes[i]);
      break;
    case ElementType::Bool:
      if (bytes[i] > 1)
        return false;
      out.ints.push_back(bytes[i]);
      break;
    case ElementType::I32: {
      uint32_t bits = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 |
                      uint32_t(bytes[4 * i + 2]) << 16 |
                      uint32_t(bytes[4 * i + 3]) << 24;
      out.ints.push_back(int32_t(bits));
      break;
    }
    case ElementType::I64:
    case ElementType::I16:
    case ElementType::U16:
    case ElementType::U32:
    case ElementType::U64: {
      // Host-only integers: held as int32, so their values must fit.
      unsigned width = byteWidth(out.type);
      uint64_t bits = 0;
      for (int b = int(width) - 1; b >= 0; --b)
        bits = bits << 8 | bytes[width * i + b];
      int64_t value = int64_t(bits);
      if (out.type == ElementType::I16)
        value = int16_t(bits);
      if (out.type == ElementType::U64 && bits > uint64_t(INT64_MAX))
        return false;
      if (!inRange(out.type, value))
        return false;
      out.ints.push_back(int32_t(value));
      break;
    }
    }
  }
  return true;
}

/// Appends the elements of `tensor` to `out`, little-endian, in the width
/// of descrOf(tensor.type).
void encodeElements(const Tensor &tensor, std::string &out) {
  auto put = [&out](uint32_t bits, int bytes) {
    for (int b = 0; b < bytes; ++b)
      out.push_back(static_cast<char>((bits >> (8 * b)) & 0xff));
  };
  for (size_t i = 0; i < tensor.size(); ++i) {
    if (isNarrowFloat(tensor.type) || tensor.type == ElementType::F32 ||
        tensor.type == ElementType::BF16) {
      uint32_t bits;
      std::memcpy(&bits, &tensor.data[i], 4);
      put(bits, 4);
      continue;
    }
    switch (tensor.type) {
    case ElementType::F16:
      put(halfBits(tensor.data[i]), 2);
      break;
    case ElementType::F64: {
      // Widened exactly from the fp32 the chip holds.
      double value = tensor.data[i];
      uint64_t bits;
      std::memcpy(&bits, &value, 8);
      put(uint32_t(bits), 4);
      put(uint32_t(bits >> 32), 4);
      break;
    }
    case ElementType::I32:
      put(uint32_t(tensor.ints[i]), 4);
      break;
    case ElementType::I64:
    case ElementType::U64: {
      // Sign-extended: the high word is all ones for negative values.
      put(uint32_t(tensor.ints[i]), 4);
      put(tensor.ints[i] < 0 ? 0xffffffffu : 0u, 4);
      break;
    }
    case ElementType::U32:
      put(uint32_t(tensor.ints[i]), 4);
      break;
    case ElementType::I16:
    case ElementType::U16:
      put(uint32_t(tensor.ints[i]), 2);
      break;
    default:
      put(uint32_t(tensor.ints[i]), 1);
      break;
    }
  }
}

/// Describes a numpy dtype string for error messages, e.g. '<f8' (float64).
std::string describeDtype(const std::string &descr) {
  std::string text = "'" + descr + "'";
  if (descr.size() < 3)
    return text;
  char order = descr[0], kind = descr[1];
  int bytes = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (descr[i] < '0' || descr[i] > '9' || bytes > 1000)
      return text;
    bytes = bytes * 10 + (descr[i] - '0');
  }
  std::string bits = std::to_string(bytes * 8);
  const char *name = kind == 'f'   ? "float"
                     : kind == 'i' ? "int"
                     : kind == 'u' ? "uint"
                     : kind == 'c' ? "complex"
                     : kind == 'b' ? "bool"
                                   : nullptr;
  if (!name)
    return text;
  text += std::string(" (") + (order == '>' ? "big-endian " : "") + name +
          (kind == 'b' ? "" : bits) + ")";
  return text;
}
} // namespace

bool parseNpy(const std::string &bytes, const std::string &source, Tensor &out,
              std::string &error) {
  auto fail = [&](const std::string &what) {
    error = source + ": " + what;
    return false;
  };
  if (bytes.size() < kMagicBytes + 2 ||
      std::memcmp(bytes.data(), kMagic, kMagicBytes) != 0)
    return fail("not a .npy file (missing the '\\x93NUMPY' magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagicBytes + 2 + lengthBytes;
  if (bytes.size() < headerStart)
    return fail("the header is truncated");
  uint64_t headerBytes = getLE(bytes, kMagicBytes + 2, int(lengthBytes));
  if (bytes.size() - headerStart < headerBytes)
    return fail("the header is truncated (it claims " +
                std::to_string(headerBytes) + " bytes, the file has " +
                std::to_string(bytes.size() - headerStart) + " after it)");
  std::string text = bytes.substr(headerStart, headerBytes);
  Header header;
  std::string what;
  if (!HeaderParser(text).parse(header, what))
    return fail("malformed header: " + what);
  std::optional<ElementType> type = typeOfDescr(header.descr);
  if (!type)
    return fail("unsupported dtype " + describeDtype(header.descr) +
                "; supported: float32 ('<f4'), float16 ('<f2'), int8 "
                "('|i1'), uint8 ('|u1'), int32 ('<i4'), bool ('|b1'), and int16 "
                "('<i2'), uint16 ('<u2'), uint32 ('<u4'), uint64 ('<u8') and "
                "int64 ('<i8') with values in the int32 range, float64 "
                "('<f8', rounded to float32), "
                "little-endian (convert with array.astype(...))");
  if (header.fortranOrder)
    return fail("Fortran-order arrays are not supported; save a C-order "
                "array (numpy.ascontiguousarray)");
  uint64_t count = 0;
  if (!elementCount(header.shape, count) || count > (uint64_t(1) << 40))
    return fail("shape " + shapeString(header.shape) + " is too large");
  unsigned width = byteWidth(*type);
  uint64_t dataBytes = count * width;
  uint64_t available = bytes.size() - headerStart - headerBytes;
  if (available < dataBytes)
    return fail("the data is truncated: shape " + shapeString(header.shape) +
                " needs " + std::to_string(dataBytes) +
                " bytes, the file has " + std::to_string(available));
  if (available > dataBytes)
    return fail("the file has " + std::to_string(available - dataBytes) +
                " bytes after the data of shape " + shapeString(header.shape));
  out.type = *type;
  out.shape = header.shape;
  out.data.clear();
  out.ints.clear();
  if (!decodeElements(bytes.data() + headerStart + headerBytes, count, out))
    return fail("element " + std::to_string(out.size()) +
                (isHostOnly(out.type)
                     ? " is outside the range of " + typeName(out.type) +
                           " that the chip holds (as int32)"
                     : std::string(" is not a bool (0 or 1)")));
  return true;
}

bool serializeNpy(const Tensor &tensor, std::string &out, std::string &error) {
  uint64_t count = 0;
  if (!elementCount(tensor.shape, count) || count != tensor.size()) {
    error = "tensor of shape " + shapeString(tensor.shape) + " has " +
            std::to_string(tensor.size()) + " elements";
    return false;
  }
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += std::to_string(tensor.shape[i]) + ", ";
  if (tensor.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (tensor.shape.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string dict =
      "{'descr': '" + descrOf(tensor.type) +
      "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary.
  size_t total = kMagicBytes + 2 + 2 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) {
    error = "shape " + shapeString(tensor.shape) +
            " is too long for a .npy 1.0 header";
    return false;
  }
  out.assign(kMagic, kMagicBytes);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  encodeElements(tensor, out);
  return true;
}

bool readNpy(const std::string &path, Tensor &out, std::string &error) {
  std::string bytes;
  if (!readRegularFile(path, kMaxReadBytes, bytes, error)) {
    error = path + ": .npy file " + error;
    return false;
  }
  return parseNpy(bytes, path, out, error);
}

bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string &error) {
  std::string bytes;
  if (!serializeNpy(tensor, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  return writeFileAtomically(path, bytes, error);
}

} // namespace hetc::io

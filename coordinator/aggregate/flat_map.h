// FlatMap and FlatSet: ordered containers kept as one sorted vector, for the small maps and sets
// of every configuration's result (its parameters, metric summaries, nodes and fingerprints:
// three or four entries each). A std::map node costs 32 bytes of tree beside each entry and a
// heap block of its own; a configuration's four containers cost ~300 bytes less this way, which
// is what a million-configuration sweep's final aggregate holds per configuration (issue 16).
//
// The interface is std::map's / std::set's for what the project uses (ordered iteration, find,
// count, at, operator[], emplace, insert, equality); insertion is O(n), so they are for small
// sizes only. Iterators and references are invalidated by any insertion, as a vector's.
// Errors: at() throws std::out_of_range for a missing key, as std::map::at.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace fleetsweep {

// What both containers are: distinct items kept sorted in one vector.
template <class T>
class SortedItems {
 public:
  using const_iterator = typename std::vector<T>::const_iterator;
  using size_type = size_t;
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  void reserve(size_t n) { items_.reserve(n); }

 protected:
  std::vector<T> items_;  // sorted by key, distinct keys
};

template <class K, class V>
class FlatMap : public SortedItems<std::pair<K, V>> {
  using Base = SortedItems<std::pair<K, V>>;
  using Base::items_;

 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename Base::const_iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> init) {
    for (const auto& v : init) insert(v);
  }
  // From any map-like range of (key, value) pairs (a std::map, say).
  template <class Map, class = decltype(std::declval<const Map&>().begin()->second)>
  FlatMap(const Map& m) {  // NOLINT(google-explicit-constructor): a drop-in for std::map
    for (const auto& [k, v] : m) emplace(k, v);
  }

  using Base::begin;
  using Base::end;
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }

  iterator find(const K& k) { return FindIn(items_, k); }
  const_iterator find(const K& k) const { return FindIn(items_, k); }
  size_t count(const K& k) const { return find(k) == end() ? 0 : 1; }
  V& at(const K& k) { return AtIn(items_, k); }
  const V& at(const K& k) const { return AtIn(items_, k); }
  V& operator[](const K& k) { return emplace(k, V{}).first->second; }
  // Inserts (k, v) unless k is present; returns where k is and whether it was inserted.
  template <class KK, class VV>
  std::pair<iterator, bool> emplace(KK&& k, VV&& v) {
    auto it = LowerBound(items_, k);
    if (it != items_.end() && it->first == k) return {it, false};
    return {items_.emplace(it, std::forward<KK>(k), std::forward<VV>(v)), true};
  }
  std::pair<iterator, bool> insert(value_type v) {
    return emplace(std::move(v.first), std::move(v.second));
  }

  bool operator==(const FlatMap& o) const { return items_ == o.items_; }
  bool operator!=(const FlatMap& o) const { return items_ != o.items_; }

 private:
  // The first item of `items` (const or not) whose key is not below k.
  template <class Vec, class KK>
  static auto LowerBound(Vec& items, const KK& k) -> decltype(items.begin()) {
    return std::lower_bound(items.begin(), items.end(), k,
                            [](const value_type& a, const KK& b) { return a.first < b; });
  }
  template <class Vec>
  static auto FindIn(Vec& items, const K& k) -> decltype(items.begin()) {
    auto it = LowerBound(items, k);
    return it != items.end() && it->first == k ? it : items.end();
  }
  template <class Vec>
  static auto AtIn(Vec& items, const K& k) -> decltype((items.begin()->second)) {
    auto it = FindIn(items, k);
    if (it == items.end()) throw std::out_of_range("FlatMap::at: no such key");
    return it->second;
  }
};

template <class K>
class FlatSet : public SortedItems<K> {
  using Base = SortedItems<K>;
  using Base::items_;

 public:
  using value_type = K;
  using iterator = typename Base::const_iterator;
  using const_iterator = iterator;

  FlatSet() = default;
  FlatSet(std::initializer_list<K> init) {
    for (const auto& v : init) insert(v);
  }
  // From any range of keys (a std::set, say).
  template <class Range, class = decltype(K(*std::declval<const Range&>().begin()))>
  FlatSet(const Range& r) {  // NOLINT(google-explicit-constructor): a drop-in for std::set
    for (const auto& v : r) insert(v);
  }

  const_iterator find(const K& k) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), k);
    return it != items_.end() && *it == k ? it : items_.end();
  }
  size_t count(const K& k) const { return find(k) == this->end() ? 0 : 1; }
  std::pair<const_iterator, bool> insert(K k) {
    auto it = std::lower_bound(items_.begin(), items_.end(), k);
    if (it != items_.end() && *it == k) return {it, false};
    return {items_.insert(it, std::move(k)), true};
  }

  bool operator==(const FlatSet& o) const { return items_ == o.items_; }
  bool operator!=(const FlatSet& o) const { return items_ != o.items_; }
};

}  // namespace fleetsweep

#include "bursts.hpp"

#include <algorithm>
#include <array>

#include "cryptoaccel/driver/secret_bytes.hpp"
#include "thread_state.hpp"

namespace cryptoaccel::mb {
namespace {

// libipsec-mb rejects null pointers even for empty inputs.
const std::uint8_t kNothing[16] = {};

const std::uint8_t* data_or_nothing(std::span<const std::uint8_t> bytes) {
  return bytes.empty() ? kNothing : bytes.data();
}

IMB_CIPHER_DIRECTION direction_of(Operation op) {
  return op == Operation::decrypt ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
}

std::uint64_t key_bytes(IMB_KEY_SIZE_BYTES size) {
  return static_cast<std::uint64_t>(size);
}

// Where a burst's requests and their keys come from: entries from many
// sessions (the gatherer's queue), or one session's batch with its keys.
struct FromEntries {
  std::span<Entry> entries;
  std::size_t size() const { return entries.size(); }
  Request& request(std::size_t i) const { return *entries[i].request; }
  const KeySchedule& keys(std::size_t i) const { return *entries[i].keys; }
};

struct FromSession {
  std::span<Request> requests;
  const KeySchedule& session_keys;
  std::size_t size() const { return requests.size(); }
  Request& request(std::size_t i) const { return requests[i]; }
  const KeySchedule& keys(std::size_t) const { return session_keys; }
};

// Marks the requests of every job that did not complete. A burst that
// stops early (`done` short) failed its validation: none of it ran.
void settle(Lanes& lanes, std::uint32_t done) {
  const std::size_t count = lanes.count;  // read once: a status store might alias it
  for (std::size_t k = 0; k < count; ++k)
    if (k >= done || lanes.jobs[k].status != IMB_STATUS_COMPLETED)
      lanes.owners[k]->status = ErrorCode::driver_failure;
  lanes.count = 0;
}

void set_cipher_job(IMB_JOB& job, const Request& r, const KeySchedule& keys, const std::uint8_t* iv,
                    std::size_t offset, std::size_t length) {
  job.src = r.in.data() + offset;
  job.dst = r.out.data() + offset;
  job.cipher_start_src_offset_in_bytes = 0;
  job.msg_len_to_cipher_in_bytes = length;
  job.iv = iv;
  job.iv_len_in_bytes = 16;
  job.enc_keys = keys.encrypt_rounds;
  job.dec_keys = keys.decrypt_rounds;
}

// libipsec-mb counts CTR blocks in the counter block's low 32 bits only,
// where OpenSSL carries through all 128: a request whose count would wrap
// them is split there, its second part started from the carried counter.
void add_ctr(Lanes& lanes, const Algorithm& a, Request& r, const KeySchedule& keys) {
  const std::uint8_t* iv = r.iv.data();
  const std::uint32_t low =
      (std::uint32_t{iv[12]} << 24) | (std::uint32_t{iv[13]} << 16) | (iv[14] << 8) | iv[15];
  const std::uint64_t blocks_to_wrap = (std::uint64_t{1} << 32) - low;
  const std::uint64_t blocks = (r.in.size() + 15) / 16;
  if (blocks <= blocks_to_wrap) {
    set_cipher_job(lanes.add(r), r, keys, iv, 0, r.in.size());
    return;
  }
  const std::size_t first = static_cast<std::size_t>(blocks_to_wrap * 16);
  set_cipher_job(lanes.add(r), r, keys, iv, 0, first);
  const std::size_t k = lanes.count;
  std::copy(iv, iv + 16, lanes.counters[k].begin());
  advance_counter(a, lanes.counters[k], blocks_to_wrap);
  set_cipher_job(lanes.add(r), r, keys, lanes.counters[k].data(), first, r.in.size() - first);
}

template <typename Source>
void run_cipher_bursts(const Route& route, Operation op, const Source& source) {
  ThreadState& state = this_thread_state();
  IMB_MGR& m = *state.manager;
  Lanes& lanes = state.lanes;
  const Algorithm& a = algorithm(route.algorithm);
  const IMB_CIPHER_MODE mode = route.family == Family::cbc ? IMB_CIPHER_CBC : IMB_CIPHER_CNTR;
  const auto submit = [&] {
    if (lanes.count == 0) return;
    // Unchecked: the framework has checked every length against the
    // capability (whole blocks, below the lanes' 64 KiB) and the IV and key
    // are the session's; the library's own checks cost 5% at 256 bytes.
    const std::uint32_t done = IMB_SUBMIT_CIPHER_BURST_NOCHECK(
        &m, lanes.jobs.data(), static_cast<std::uint32_t>(lanes.count), mode, direction_of(op),
        route.key_size);
    settle(lanes, done);
  };
  // Statuses start ok (the framework sets them); only failures are written.
  if (route.family == Family::cbc) {
    // CBC never splits a request. The count of lanes filled is kept local:
    // in `lanes`, every job store (which might alias it) made the compiler
    // reload and store it again per request.
    std::size_t filled = 0;
    for (std::size_t i = 0; i < source.size(); ++i) {
      Request& r = source.request(i);
      if (r.in.empty()) continue;  // nothing to encrypt: done
      if (filled == kMaxBurst) {
        lanes.count = filled;
        submit();
        filled = 0;
      }
      lanes.owners[filled] = &r;
      set_cipher_job(lanes.jobs[filled++], r, source.keys(i), r.iv.data(), 0, r.in.size());
    }
    lanes.count = filled;
    submit();
    return;
  }
  for (std::size_t i = 0; i < source.size(); ++i) {
    Request& r = source.request(i);
    if (r.in.empty()) continue;  // nothing to encrypt: done
    if (lanes.full(2)) submit();
    if (route.family == Family::ctr)
      add_ctr(lanes, a, r, source.keys(i));
    else
      set_cipher_job(lanes.add(r), r, source.keys(i), r.iv.data(), 0, r.in.size());
  }
  submit();
}

// Jobs per hash burst: two AVX-512 widths, past which the floor measured
// nothing more (bench/mb_floor).
constexpr std::size_t kMaxHashBurst = 32;

template <typename Source>
void run_hmac_bursts(const Route& route, const Source& source) {
  ThreadState& state = this_thread_state();
  IMB_MGR& m = *state.manager;
  Lanes& lanes = state.lanes;
  const auto submit = [&] {
    if (lanes.count == 0) return;
    const std::uint32_t done = IMB_SUBMIT_HASH_BURST(
        &m, lanes.jobs.data(), static_cast<std::uint32_t>(lanes.count), route.hash);
    settle(lanes, done);
  };
  std::size_t filled = 0;  // kept local, as in run_cipher_bursts
  for (std::size_t i = 0; i < source.size(); ++i) {
    Request& r = source.request(i);
    const KeySchedule& keys = source.keys(i);
    if (r.in.empty()) {
      // The library refuses an empty message; its MAC is the session's
      // one constant.
      std::copy_n(keys.empty_message_mac, r.out.size(), r.out.begin());
      continue;
    }
    if (filled == kMaxHashBurst) {
      lanes.count = filled;
      submit();
      filled = 0;
    }
    lanes.owners[filled] = &r;
    IMB_JOB& job = lanes.jobs[filled++];
    job.src = r.in.data();
    job.hash_start_src_offset_in_bytes = 0;
    job.msg_len_to_hash_in_bytes = r.in.size();
    job.auth_tag_output = r.out.data();
    job.auth_tag_output_len_in_bytes = r.out.size();
    job.u.HMAC._hashed_auth_key_xor_ipad = keys.inner;
    job.u.HMAC._hashed_auth_key_xor_opad = keys.outer;
  }
  lanes.count = filled;
  submit();
}

// The job API: GCM (no burst entry point in 1.3) and plain SHA digests
// (which the hash burst refuses). Jobs come back in the order they went in.
template <typename Source>
void run_jobs(const Route& route, Operation op, const Source& source) {
  ThreadState& state = this_thread_state();
  IMB_MGR& m = *state.manager;
  // A GCM open computes the tag here, and compares it with the request's.
  auto& computed_tags = state.open_tags;
  const bool open = route.family == Family::gcm && op == Operation::decrypt;
  if (open && computed_tags.size() < source.size()) computed_tags.resize(source.size());

  const auto finish = [&](IMB_JOB* job) {
    Request& r = *static_cast<Request*>(job->user_data);
    if (job->status != IMB_STATUS_COMPLETED) {
      r.status = ErrorCode::driver_failure;
    } else if (open) {
      auto* tag = static_cast<std::uint8_t*>(job->user_data2);
      if (!constant_time_equal({tag, r.tag.size()}, r.tag))
        r.status = ErrorCode::authentication_failed;
      secure_wipe(tag, 16);
    }
  };
  for (std::size_t i = 0; i < source.size(); ++i) {
    Request& r = source.request(i);
    IMB_JOB* job = IMB_GET_NEXT_JOB(&m);
    job->user_data = &r;
    job->src = data_or_nothing(r.in);
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = r.in.size();
    job->cipher_start_src_offset_in_bytes = 0;
    if (route.family == Family::gcm) {
      const KeySchedule& keys = source.keys(i);
      job->cipher_mode = IMB_CIPHER_GCM;
      job->hash_alg = IMB_AUTH_AES_GMAC;
      job->cipher_direction = direction_of(op);
      job->chain_order = open ? IMB_ORDER_HASH_CIPHER : IMB_ORDER_CIPHER_HASH;
      job->enc_keys = &keys.gcm;
      job->dec_keys = &keys.gcm;
      job->key_len_in_bytes = key_bytes(route.key_size);
      job->dst = r.in.empty() ? const_cast<std::uint8_t*>(kNothing) : r.out.data();
      job->msg_len_to_cipher_in_bytes = r.in.size();
      job->iv = r.iv.data();
      job->iv_len_in_bytes = r.iv.size();
      job->u.GCM.aad = data_or_nothing(r.aad);
      job->u.GCM.aad_len_in_bytes = r.aad.size();
      job->user_data2 = open ? computed_tags[i].data() : nullptr;
      job->auth_tag_output = open ? computed_tags[i].data() : r.tag.data();
      job->auth_tag_output_len_in_bytes = r.tag.size();
    } else {
      job->cipher_mode = IMB_CIPHER_NULL;
      job->hash_alg = route.hash;
      job->cipher_direction = IMB_DIR_ENCRYPT;
      job->chain_order = IMB_ORDER_HASH_CIPHER;
      job->msg_len_to_cipher_in_bytes = 0;
      job->auth_tag_output = r.out.data();
      job->auth_tag_output_len_in_bytes = r.out.size();
    }
    for (job = IMB_SUBMIT_JOB(&m); job != nullptr; job = IMB_GET_COMPLETED_JOB(&m)) finish(job);
  }
  while (IMB_JOB* job = IMB_FLUSH_JOB(&m)) finish(job);
}

template <typename Source>
void run_any(const Route& route, Operation op, const Source& source) noexcept {
  try {
    switch (route.family) {
      case Family::cbc:
      case Family::ctr:
        run_cipher_bursts(route, op, source);
        return;
      case Family::hmac:
        run_hmac_bursts(route, source);
        return;
      case Family::gcm:
      case Family::digest:
        run_jobs(route, op, source);
        return;
    }
  } catch (...) {
    // No manager for this thread (this_thread_state threw): nothing ran.
  }
  for (std::size_t i = 0; i < source.size(); ++i)
    source.request(i).status = ErrorCode::driver_failure;
}

}  // namespace

void run_burst(const Route& route, Operation op, std::span<Entry> entries) noexcept {
  run_any(route, op, FromEntries{entries});
}

void run_burst(const Route& route, Operation op, std::span<Request> requests,
               const KeySchedule& keys) noexcept {
  run_any(route, op, FromSession{requests, keys});
}

}  // namespace cryptoaccel::mb

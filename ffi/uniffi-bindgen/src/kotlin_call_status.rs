//! A post-processing pass over uniffi 0.32's Kotlin output: the per-call `RustCallStatus`.
//!
//! uniffi's Kotlin helper `uniffiRustCallWithError` allocates a new JNA `Structure` for the call
//! status of every FFI call (a method call makes several: the handle clone, the request
//! buffer's allocation, the call itself, the answer buffer's free) and lets JNA copy every
//! field of it to native memory before the call and back after it by reflection. Each JNA
//! structure `malloc`s, registers in JNA's global memory map and its cleaner, and is freed by
//! the cleaner thread after a GC: about 6 µs per status on our machines, two thirds of a
//! timezone call (docs/performance.md, "Native SDK").
//!
//! The pass makes the helper reuse one status per thread (a nested call on the same thread,
//! e.g. from a callback, gets a fresh one) with JNA's automatic copying switched off: the code
//! byte is zeroed before the call and read after it, and the whole status (with the error
//! buffer) is read only when the call failed. Nothing else in the file changes.
//!
//! Every replacement must find its anchor exactly once; when a uniffi upgrade changes the
//! template, generation fails and names the anchor instead of producing half-patched code.

/// (what uniffi generates, what it becomes)
const PATCHES: [(&str, &str); 3] = [
    (
        "    fun isSuccess(): Boolean {\n",
        "    // Waymark: reads the outcome of a call made with a status from `acquire()` (JNA's
    // automatic copying is off for those): the code byte, and the error buffer when it failed.
    internal fun syncAfterCall() {
        code = pointer.getByte(0)
        if (code != UNIFFI_CALL_SUCCESS) read()
    }

    fun isSuccess(): Boolean {\n",
    ),
    (
        "    companion object {
        fun create(code: Byte, errorBuf: RustBuffer.ByValue): UniffiRustCallStatus.ByValue {\n",
        "    companion object {
        // Waymark: one reusable status per thread instead of a JNA structure per call.
        private val pool = ThreadLocal<UniffiRustCallStatus?>()

        fun acquire(): UniffiRustCallStatus {
            var status = pool.get()
            if (status == null) {
                status = UniffiRustCallStatus()
                status.setAutoSynch(false)
            } else {
                pool.set(null)
            }
            status.code = UNIFFI_CALL_SUCCESS
            status.pointer.setByte(0, UNIFFI_CALL_SUCCESS)
            return status
        }

        fun release(status: UniffiRustCallStatus) {
            pool.set(status)
        }

        fun create(code: Byte, errorBuf: RustBuffer.ByValue): UniffiRustCallStatus.ByValue {\n",
    ),
    (
        "    var status = UniffiRustCallStatus()
    val return_value = callback(status)
    uniffiCheckCallStatus(errorHandler, status)
    return return_value
}\n",
        "    val status = UniffiRustCallStatus.acquire()
    try {
        val return_value = callback(status)
        status.syncAfterCall()
        uniffiCheckCallStatus(errorHandler, status)
        return return_value
    } finally {
        UniffiRustCallStatus.release(status)
    }
}\n",
    ),
];

/// Applies the pass to the text of one generated Kotlin file.
pub fn patch(kotlin: &str) -> Result<String, String> {
    let mut out = kotlin.to_owned();
    for (anchor, replacement) in PATCHES {
        match out.matches(anchor).count() {
            1 => out = out.replacen(anchor, replacement, 1),
            n => {
                return Err(format!(
                    "the Kotlin call-status pass expects this text of uniffi's template exactly \
                     once, found it {n} times (did uniffi change? review ffi/uniffi-bindgen/src/\
                     kotlin_call_status.rs):\n{anchor}"
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    fn template() -> String {
        PATCHES
            .iter()
            .map(|(anchor, _)| format!("// before\n{anchor}// after\n"))
            .collect()
    }

    #[test]
    fn every_anchor_is_replaced_once() {
        let out = patch(&template()).expect("patched");
        for (anchor, replacement) in PATCHES {
            assert!(!out.contains(anchor) || replacement.contains(anchor));
            assert_eq!(out.matches(replacement).count(), 1);
        }
        assert!(out.contains("UniffiRustCallStatus.acquire()"));
        assert!(!out.contains("var status = UniffiRustCallStatus()"));
    }

    #[test]
    fn a_missing_or_repeated_anchor_is_an_error() {
        let missing = template().replace(PATCHES[2].0, "");
        let err = patch(&missing).expect_err("missing anchor");
        assert!(err.contains("found it 0 times"), "{err}");
        let twice = format!("{}{}", template(), PATCHES[0].0);
        assert!(
            patch(&twice)
                .expect_err("repeated")
                .contains("found it 2 times")
        );
    }

    #[test]
    fn patching_is_not_applied_twice() {
        let once = patch(&template()).expect("patched");
        // The third anchor is gone after the first pass, so a second pass refuses.
        assert!(patch(&once).is_err());
    }
}

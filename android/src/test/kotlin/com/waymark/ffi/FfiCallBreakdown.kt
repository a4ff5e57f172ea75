package com.waymark.ffi

import com.waymark.core.FfiConverterTypeTimezoneRequest
import com.waymark.core.LatLng
import com.waymark.core.TimezoneRequest
import com.waymark.sdk.Fixture

/**
 * Where the time of one generated FFI call goes: the pieces of a timezone call measured apart
 * (a raw JNA call without a status, a JNA structure, the request buffer's round trip, the
 * handle clone every method makes, whole calls). A benchmark program, not a test; it lives in
 * `com.waymark.ffi` to reach the generated binding's internals:
 *
 *   mvn -B test-compile exec:exec@bench -Dbench.main=com.waymark.ffi.FfiCallBreakdown \
 *       -Dwaymark.fixture=... -Dwaymark.lib.dir=<release dir>
 *
 * `BENCH_ONLY=<prefix>` in the environment runs only the lines starting with it (for a profiler).
 */
object FfiCallBreakdown {
    @JvmStatic
    fun main(args: Array<String>) {
        val waymark = Fixture.open(Fixture.key("private"))
        val native = waymark.nativeForBenchmark
        val req = TimezoneRequest(location = LatLng(42.5, 1.5), timestamp = 1767225600L)
        val only = System.getenv("BENCH_ONLY")
        fun measure(name: String, call: () -> Unit) {
            if (only != null && !name.startsWith(only)) return
            repeat(50_000) { call() }
            val t0 = System.nanoTime()
            val n = 100_000
            repeat(n) { call() }
            println("%-40s %8.3f us".format(name, (System.nanoTime() - t0) / 1000.0 / n))
        }
        measure("contract version (raw JNA call)") { IntegrityCheckingUniffiLib.ffi_waymark_ffi_uniffi_contract_version() }
        measure("new UniffiRustCallStatus") { UniffiRustCallStatus() }
        measure("new RustBuffer.ByValue") { RustBuffer.ByValue() }
        measure("RustBuffer.alloc + free") { RustBuffer.free(RustBuffer.alloc(16UL)) }
        measure("lower TimezoneRequest + free") { com.waymark.core.RustBuffer.free(FfiConverterTypeTimezoneRequest.lower(req)) }
        // Leaks one reference count on the engine per call (harmless here: the process ends).
        measure("handle clone") { native.uniffiCloneHandle() }
        measure("appIdentity()") { native.appIdentity() }
        measure("geolocationTimezone(request)") { native.geolocationTimezone(req) }
        waymark.close()
    }
}

package com.waymark.sdk

import com.waymark.core.LatLng
import com.waymark.core.TimezoneRequest
import kotlinx.coroutines.runBlocking

/**
 * The cost of one FFI call from Kotlin: a timezone lookup through the generated binding (the
 * raw JNA call, lowering the request and lifting the answer) and through the library's
 * `suspend` wrapper. A benchmark program, not a test:
 *
 *   mvn -B test-compile exec:exec@bench -Dwaymark.fixture=... -Dwaymark.lib.dir=<release dir>
 *
 * Prints the mean and the percentiles of per-call times (batches of 1,000 calls after 100,000
 * warm-up calls).
 */
object FfiCallBenchmark {
    @JvmStatic
    fun main(args: Array<String>) {
        val waymark = Fixture.open(Fixture.key("private"))
        val native = waymark.nativeForBenchmark
        val points = (0 until 1024).map { i ->
            TimezoneRequest(location = LatLng(42.43 + (i % 32) * 0.007, 1.41 + (i / 32) * 0.011), timestamp = 1767225600L)
        }
        fun measure(name: String, batches: Int, call: (TimezoneRequest) -> Unit) {
            repeat(100_000) { call(points[it and 1023]) } // warm-up (JIT, caches)
            val perCallNs = DoubleArray(batches)
            var k = 0
            for (b in 0 until batches) {
                val t0 = System.nanoTime()
                repeat(1000) { call(points[(k++) and 1023]) }
                perCallNs[b] = (System.nanoTime() - t0) / 1000.0
            }
            perCallNs.sort()
            val mean = perCallNs.average()
            fun p(q: Double) = perCallNs[((batches - 1) * q).toInt()]
            println(
                "%-34s mean %7.2f us  p50 %7.2f us  p95 %7.2f us  p99 %7.2f us  (%d calls)".format(
                    name, mean / 1000, p(0.5) / 1000, p(0.95) / 1000, p(0.99) / 1000, batches * 1000,
                ),
            )
        }
        measure("binding appIdentity (no request)", 100) { native.appIdentity() }
        measure("binding geolocationTimezone", 200) { native.geolocationTimezone(it) }
        measure("suspend Waymark.timezone", 100) { runBlocking { waymark.timezone(it) } }
        waymark.close()
    }
}

package com.waymark.sdk

import com.waymark.core.DetailsRequest
import com.waymark.core.LatLng
import com.waymark.core.TimezoneRequest
import com.waymark.core.WaymarkException
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * The generated Kotlin reuses one call status per thread (the pass in
 * ffi/uniffi-bindgen/src/kotlin_call_status.rs): an outcome never leaks into the next call,
 * on one thread or on many at once. Calls go straight through the generated binding.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallStatusTest {
    private val waymark = Fixture.open(Fixture.key("private"))
    private val native = waymark.nativeForBenchmark
    private val outOfRange = TimezoneRequest(location = LatLng(200.0, 1.0))

    @AfterAll
    fun close() = waymark.close()

    private fun outcome(request: TimezoneRequest): String = try {
        native.geolocationTimezone(request).timezone
    } catch (e: WaymarkException.Validation) {
        "422 " + e.fields.joinToString { it.loc.joinToString(".") }
    }

    @Test
    fun successAndFailureAlternateOnOneThread() {
        repeat(100) {
            assertEquals("Europe/Andorra", outcome(Fixture.andorraTimezone))
            assertEquals("422 \"query\".\"location\"", outcome(outOfRange))
            val missing = assertThrows<WaymarkException.NotFound> { native.localitiesDetails(DetailsRequest(publicId = "place.osm-n0")) }
            assertTrue(missing.detail.isNotEmpty())
            assertEquals("Europe/Andorra", native.geolocationTimezone(Fixture.andorraTimezone).timezone)
        }
    }

    @Test
    fun threadsCallingAtOnceEachGetTheirOwnOutcome() {
        val pool = Executors.newFixedThreadPool(8)
        try {
            val calls = (0 until 2_000).map { i ->
                pool.submit<String> { outcome(if (i % 3 == 0) outOfRange else Fixture.andorraTimezone) }
            }
            calls.forEachIndexed { i, call ->
                assertEquals(if (i % 3 == 0) "422 \"query\".\"location\"" else "Europe/Andorra", call.get(30, TimeUnit.SECONDS), "call $i")
            }
        } finally {
            pool.shutdownNow()
        }
    }
}

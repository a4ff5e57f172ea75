package com.waymark.sdk

import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import java.io.File

/**
 * The golden cases of tests/golden/parity (answered identically by the engine and the local
 * server over HTTP, see tests/tests/parity.rs) through the Kotlin library: the golden request
 * is read into its Kotlin data class, the typed operation runs, and its answer written as JSON
 * must equal the golden answer. The operation is chosen by the generated
 * `WaymarkOperations.callJson` from the golden's method and path: every case runs, whatever
 * its operation. A case that writes runs its setup steps first on a state of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParityTest {
    private val waymark = Fixture.open(Fixture.key("private"))

    @AfterAll
    fun close() = waymark.close()

    /** The operation of the golden's endpoint, found by the generated `callJson` (one branch per
     * operation of the endpoint table), so that every golden case runs without a list here. */
    private fun answer(endpoint: String, request: String, waymark: Waymark = this.waymark): String = runBlocking {
        waymark.callJson(endpoint, request) ?: error("no operation of the native SDK answers $endpoint")
    }

    /** [value] with every member named in [volatile] (the time of a write) replaced by `"<name>"`, as the goldens hold it. */
    private fun steady(value: JsonElement, volatile: Set<String>): JsonElement = when (value) {
        is JsonObject -> JsonObject(
            value.mapValues { (k, v) ->
                if (k in volatile) {
                    java.time.OffsetDateTime.parse(v.jsonPrimitive.content)
                    JsonPrimitive("<$k>")
                } else {
                    steady(v, volatile)
                }
            },
        )
        is JsonArray -> JsonArray(value.map { steady(it, volatile) })
        else -> value
    }

    @TestFactory
    fun goldenCases(): List<DynamicTest> {
        val dir = File(System.getProperty("waymark.golden") ?: error("set -Dwaymark.golden"))
        val goldens = dir.listFiles { f -> f.name.endsWith(".json") && f.name != "cases.json" }!!.sortedBy { it.name }
        assertTrue(goldens.isNotEmpty(), "no golden answers in $dir")
        return goldens.map { file ->
            DynamicTest.dynamicTest(file.nameWithoutExtension) {
                val golden = Json.parseToJsonElement(file.readText()).jsonObject
                val endpoint = golden.getValue("endpoint").jsonPrimitive.content
                val request = golden.getValue("request").toString()
                val expected: JsonElement = golden.getValue("response")
                val setup = golden["setup"]?.jsonArray
                val actual = if (setup == null) {
                    Json.parseToJsonElement(answer(endpoint, request))
                } else {
                    // A case that writes: its setup steps, then the case, on a state of its own.
                    Fixture.open(Fixture.key("private_write")).use { writer ->
                        for (step in setup) {
                            val s = step.jsonObject
                            answer(s.getValue("endpoint").jsonPrimitive.content, s.getValue("request").toString(), writer)
                        }
                        Json.parseToJsonElement(answer(endpoint, request, writer))
                    }
                }
                val volatile = golden["volatile"]?.jsonArray?.map { it.jsonPrimitive.content }.orEmpty().toSet()
                assertEquals(expected, steady(actual, volatile), "${file.name}: the Kotlin library's answer differs from the golden one")
            }
        }
    }
}

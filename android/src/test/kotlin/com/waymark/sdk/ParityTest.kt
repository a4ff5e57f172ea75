package com.waymark.sdk

import com.waymark.ffi.*
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
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
 * must equal the golden answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParityTest {
    private val waymark = Fixture.open(Fixture.key("private"))

    @AfterAll
    fun close() = waymark.close()

    private fun answer(endpoint: String, request: String): String = runBlocking {
        when (endpoint) {
            "GET /geolocation/timezone" -> geolocationTimezoneResponseToJson(waymark.timezone(geolocationTimezoneRequestFromJson(request)))
            "GET /geolocation/position" -> geolocationPositionResponseToJson(waymark.position(geolocationPositionRequestFromJson(request)))
            "GET /localities/autocomplete" -> localitiesAutocompleteResponseToJson(waymark.autocomplete(localitiesAutocompleteRequestFromJson(request)))
            "GET /localities/details" -> localitiesDetailsResponseToJson(waymark.details(localitiesDetailsRequestFromJson(request)))
            "GET /localities/geocode" -> localitiesGeocodeResponseToJson(waymark.geocode(localitiesGeocodeRequestFromJson(request)))
            "GET /localities/nearby" -> localitiesNearbyResponseToJson(waymark.nearby(localitiesNearbyRequestFromJson(request)))
            "GET /distance/route/json" -> distanceRouteResponseToJson(waymark.route(distanceRouteRequestFromJson(request)))
            "GET /distance/tolls/json" -> distanceTollsResponseToJson(waymark.tolls(distanceTollsRequestFromJson(request)))
            "GET /distance/isochrone/json" -> distanceIsochroneResponseToJson(waymark.isochrone(distanceIsochroneRequestFromJson(request)))
            "GET /stores/search" -> storesSearchResponseToJson(waymark.storesSearch(storesSearchRequestFromJson(request)))
            "GET /stores/search/bounds" -> storesBoundsResponseToJson(waymark.storesBounds(storesBoundsRequestFromJson(request)))
            "GET /threewords/convert-to-3wa" -> threewordsConvertResponseToJson(waymark.convertTo3wa(threewordsConvertRequestFromJson(request)))
            "GET /threewords/autosuggest" -> threewordsAutosuggestResponseToJson(waymark.autosuggest(threewordsAutosuggestRequestFromJson(request)))
            "GET /threewords/convert-to-coordinates" -> threewordsToCoordinatesResponseToJson(waymark.convertToCoordinates(threewordsToCoordinatesRequestFromJson(request)))
            "GET /indoor/venues" -> indoorVenueListResponseToJson(waymark.listVenues(indoorVenueListRequestFromJson(request)))
            else -> when {
                endpoint.startsWith("GET /indoor/directions/") -> indoorDirectionsResponseToJson(waymark.indoorDirections(indoorDirectionsRequestFromJson(request)))
                endpoint.startsWith("GET /indoor/venues/") && endpoint.endsWith("/pois/search") -> indoorPoiSearchResponseToJson(waymark.searchVenuePois(indoorPoiSearchRequestFromJson(request)))
                endpoint.startsWith("GET /indoor/venues/") -> indoorVenueResponseToJson(waymark.venue(indoorVenueRequestFromJson(request)))
                else -> error("no parity runner for $endpoint")
            }
        }
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
                val actual = Json.parseToJsonElement(answer(endpoint, request))
                assertEquals(expected, actual, "${file.name}: the Kotlin library's answer differs from the golden one")
            }
        }
    }
}

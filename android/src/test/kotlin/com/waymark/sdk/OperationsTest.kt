package com.waymark.sdk

import com.waymark.core.*
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File

/** Every operation that exists, through the Kotlin library, on the Andorra sample pack. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperationsTest {
    private val waymark = Fixture.open(Fixture.key("private"))

    @AfterAll
    fun close() = waymark.close()

    private val vella = LatLng(42.5078, 1.5211)
    private val encamp = LatLng(42.5346, 1.5806)

    private fun route(origin: LatLng, destination: LatLng, mode: TravelMode = TravelMode.DRIVING) = RouteRequest(
        origin = origin, destination = destination, mode = mode, method = RouteMethod.TIME,
        units = Units.METRIC, waypoints = Waypoints(optimize = false, points = listOf()),
        alternatives = false, details = DetailsLevel.FULL,
    )

    @Test
    fun timezoneAtAnInstant() = runBlocking {
        val zone = waymark.timezone(Fixture.andorraTimezone)
        assertEquals("Europe/Andorra", zone.timezone)
        assertEquals(3600, zone.rawOffset)
        assertEquals(0, zone.dstOffset)
        val summer = waymark.timezone(TimezoneRequest(location = vella, timestamp = 1782864000L))
        assertEquals(3600, summer.dstOffset)
    }

    @Test
    fun badInputIsA422WithTheFieldsToFix() {
        val e = assertThrows<WaymarkException.Validation> {
            runBlocking { waymark.timezone(TimezoneRequest(location = LatLng(200.0, 1.0))) }
        }
        assertTrue(e.fields.isNotEmpty())
        assertTrue(e.fields.any { f -> f.loc.any { it.contains("location") } }, e.fields.toString())
        assertTrue(e.detail.contains("location"), e.detail)
    }

    @Test
    fun positionOfAnAddressThePackKnows() = runBlocking {
        val ip = checkNotNull(Fixture.knownIp) { "the fixture found no Andorran address in the pack's ip layer" }
        val where = waymark.position(PositionRequest(ipAddress = ip))
        assertEquals("AD", where.countryCode)
        assertEquals("Europe/Andorra", where.timezone)
        assertThrows<WaymarkException.NotFound> { runBlocking { waymark.position(PositionRequest(ipAddress = "10.1.2.3")) } }
        Unit
    }

    @Test
    fun autocompleteThenDetails() = runBlocking {
        val found = waymark.autocomplete(
            AutocompleteRequest(input = "Andorra la V", radius = 100000u, data = AutocompleteData.STANDARD),
        )
        assertFalse(found.localities.isEmpty())
        val first = found.localities.first()
        assertTrue(first.description.contains("Andorra la Vella"), first.description)
        val details = waymark.details(DetailsRequest(publicId = first.publicId))
        assertEquals(first.publicId, details.result.publicId)
        assertThrows<WaymarkException.NotFound> { runBlocking { waymark.details(DetailsRequest(publicId = "place.osm-n0")) } }
        Unit
    }

    @Test
    fun reverseThenForwardGeocode() = runBlocking {
        val reverse = waymark.geocode(GeocodeRequest(latlng = vella))
        assertFalse(reverse.results.isEmpty())
        val address = reverse.results.first().formattedAddress
        val forward = waymark.geocode(GeocodeRequest(address = address))
        assertFalse(forward.results.isEmpty(), address)
    }

    @Test
    fun nearbyPlaces() = runBlocking {
        val nearby = waymark.nearby(NearbyRequest(types = listOf("business.food_and_drinks.restaurant", "business.food_and_drinks.cafe"), location = vella, radius = 500u, page = 1u, limit = 5u))
        assertTrue(nearby.results.size in 1..5)
    }

    @Test
    fun routeTollsAndIsochroneAreSuspendFunctions() = runBlocking {
        val r = waymark.route(route(vella, encamp))
        assertEquals(DistanceStatus.OK, r.status)
        val leg = r.routes.first().legs.first()
        assertTrue(leg.distance.value > 5000u, "${leg.distance}")
        assertNotNull(leg.steps)

        val tolls = waymark.tolls(
            TollsRequest(
                origin = encamp, destination = LatLng(42.5430, 1.7330), mode = TravelMode.DRIVING,
                method = RouteMethod.TIME, units = Units.METRIC,
                waypoints = Waypoints(optimize = false, points = listOf()), alternatives = false,
            ),
        )
        assertEquals(DistanceStatus.OK, tolls.status)

        val iso = waymark.isochrone(
            IsochroneRequest(origin = vella, value = 10.0, mode = TravelMode.DRIVING, method = RouteMethod.TIME, units = Units.METRIC),
        )
        assertEquals(DistanceStatus.OK, iso.status)
    }

    @Test
    fun releasingMemoryChangesNoAnswer() = runBlocking {
        val before = waymark.route(route(vella, encamp))
        val iso = IsochroneRequest(origin = vella, value = 10.0, mode = TravelMode.DRIVING, method = RouteMethod.TIME, units = Units.METRIC)
        val isoBefore = waymark.isochrone(iso)
        // A route and an isochrone keep their search buffers for the next requests.
        val released = waymark.releaseMemory()
        assertTrue(released.buffers >= 1u, "$released")
        assertEquals(before, waymark.route(route(vella, encamp)))
        assertEquals(isoBefore, waymark.isochrone(iso))
        // The sample pack's graphs are small enough to be held in memory: nothing is mapped.
        assertEquals(0u, waymark.releaseMappedPages().mappedFiles)
        assertEquals(before, waymark.route(route(vella, encamp)))
        // The levels of onTrimMemory that release: memory running low, the UI hidden, and after.
        assertFalse(waymark.releasesAt(5))
        assertTrue(waymark.releasesAt(10))
        assertTrue(waymark.releasesAt(20))
        assertTrue(waymark.releasesAt(80))
    }

    @Test
    fun aResidentCeilingChangesNoAnswerAndMustBePositive(@TempDir state: File) = runBlocking {
        assertThrows<IllegalArgumentException> {
            WaymarkOptions(Fixture.key("private"), listOf(Fixture.publisher), Fixture.packsDir, state, residentCeilingMb = 0)
        }
        // A one-megabyte ceiling: every call ends over it and unmaps the layouts.
        val tight = Waymark.open(
            WaymarkOptions(Fixture.key("private"), listOf(Fixture.publisher), Fixture.packsDir, state, "en", false, residentCeilingMb = 1),
            AppIdentitySource { Fixture.noIdentity },
        )
        tight.use {
            assertEquals(waymark.route(route(vella, encamp)), it.route(route(vella, encamp)))
        }
    }

    @Test
    fun matrixNowAndAsAJob() = runBlocking {
        val request = MatrixCreateRequest(
            origins = listOf(vella, encamp), destinations = listOf(encamp, vella),
            mode = TravelMode.DRIVING,
        )
        val now = waymark.matrix(request)
        assertEquals(2u, now.numOrigins)
        assertEquals(4, now.travelTimes.size)
        assertTrue(now.travelTimes.all { it != null })

        val job = waymark.createMatrixJob(request)
        withTimeout(60_000) {
            while (waymark.matrixJobStatus(MatrixStatusRequest(job.matrixId)).status != MatrixStatus.COMPLETED) delay(20)
        }
        val result = waymark.matrixJobResult(MatrixResultRequest(job.matrixId))
        assertEquals(now.travelTimes, result.matrix.travelTimes)
    }

    @Test
    fun storesSearchFindsThePacksPharmaciesNearestFirst() = runBlocking {
        val r = waymark.storesSearch(
            StoresSearchRequest(query = "type:pharmacy", center = LatLng(42.5075, 1.5218), storesByPage = 5u, page = 1u)
        )
        assertEquals("FeatureCollection", r.kind)
        assertTrue(r.features.isNotEmpty())
        assertTrue(r.features.all { "pharmacy" in it.properties.types })
        val d = r.features.map { it.properties.distance!! }
        assertEquals(d.sorted(), d)
        val bounds = waymark.storesBounds(StoresBoundsRequest(query = "type:pharmacy")).bounds
        assertTrue(bounds.west <= bounds.east && bounds.south <= bounds.north)
        val e = assertThrows<WaymarkException.Validation> {
            runBlocking { waymark.storesSearch(StoresSearchRequest(query = "type:pharmacy AND", storesByPage = 10u, page = 1u)) }
        }
        assertTrue(e.detail.contains("column"), e.detail)
    }

    @Test
    fun zonesUpdateIsUsedByTheNextZoneSearchAndABadBatchWritesNothing() = runBlocking {
        // Its own engine state: the zone edits stay out of the other tests.
        Fixture.open(Fixture.key("private_write")).use { w ->
            val pharmacy = w.storesSearch(
                StoresSearchRequest(query = "type:pharmacy", center = LatLng(42.5075, 1.5218), storesByPage = 1u, page = 1u)
            ).features.single().properties.storeId
            val far = LatLng(43.3, 2.2)
            val there = StoresSearchRequest(center = far, zone = true, storesByPage = 10u, page = 1u)
            assertTrue(w.storesSearch(there).features.isEmpty())
            val square = "POLYGON((2.19 43.29, 2.21 43.29, 2.21 43.31, 2.19 43.31, 2.19 43.29))"
            fun zone(id: String, polygon: String) =
                Zone(zoneId = id, description = null, storeId = pharmacy, polygon = polygon, types = null, status = null)
            val bad = assertThrows<WaymarkException.Validation> {
                runBlocking { w.updateZones(ZonesUpdateRequest(zones = listOf(zone("${pharmacy}D", square), zone("nope", square)))) }
            }
            assertTrue(bad.detail.contains("unknown zone_id"), bad.detail)
            assertTrue(w.storesSearch(there).features.isEmpty(), "a refused batch writes nothing")
            val r = w.updateZones(ZonesUpdateRequest(zones = listOf(zone("${pharmacy}D", square))))
            assertEquals("success", r.status)
            assertEquals("1 zone updated", r.message)
            assertEquals(listOf(pharmacy), w.storesSearch(there).features.map { it.properties.storeId })
        }
    }

    @Test
    fun threeWordAddressesRoundTripThroughAutosuggest() = runBlocking {
        val at = LatLng(42.5063, 1.5218)
        val json = waymark.convertTo3wa(ConvertTo3waRequest(coordinates = at, format = ThreeWordsFormat.JSON, language = "en"))
        val a = (json as ConvertTo3waResponse.Json).v1
        assertEquals("AD", a.country)
        assertEquals(3, a.words.split(".").size)
        assertTrue(a.map.startsWith("geo:42.50"), a.map)
        val partial = a.words.substring(0, a.words.lastIndexOf('.') + 3)
        val s = waymark.autosuggest(AutosuggestRequest(input = partial, focus = at, inputType = InputType.TEXT, preferLand = true))
        assertEquals(a.words, s.suggestions.first().words)
        assertEquals(0u, s.suggestions.first().distanceToFocusKm)
        assertEquals(listOf(1u, 2u, 3u).take(s.suggestions.size), s.suggestions.map { it.rank })
        val e = assertThrows<WaymarkException.Validation> {
            runBlocking { waymark.autosuggest(AutosuggestRequest(input = "a.b.c.d", inputType = InputType.TEXT, preferLand = true)) }
        }
        assertTrue(e.detail.contains("input"), e.detail)
    }

    @Test
    fun datasetsImportFromAFileThenSearchContainReadAndDelete(@TempDir dir: File) = runBlocking<Unit> {
        val csv = File(dir, "hydrants.csv")
        csv.writeText(
            "name;lat;lng;pressure;kind\n" +
                "h1;42.5078;1.5211;4.5;hydrant\n" +
                "h2;42.5080;1.5215;2.0;hydrant\n" +
                "h3;42.5346;1.5806;5.0;valve\n",
        )
        Fixture.open(Fixture.key("private_write")).use { w ->
            val d = w.createDataset(
                DatasetCreateRequest(DatasetCreateBody(name = "hydrants", url = "file://" + csv.absolutePath, scheduledForDeletionAfter = null)),
            )
            assertEquals("hydrants", d.name)
            var run = w.datasetStatus(DatasetStatusRequest(d.id))
            withTimeout(30_000) {
                while (run.status == ImportStatus.IN_PROGRESS) {
                    delay(20)
                    run = w.datasetStatus(DatasetStatusRequest(d.id))
                }
            }
            assertEquals(ImportStatus.SUCCESS, run.status, run.toString())
            assertEquals(listOf(ImportStepName.FETCH, ImportStepName.IMPORT), run.steps.map { it.name })
            assertTrue(w.datasets(DatasetListRequest(perPage = 10u, page = 1u)).datasets.any { it.id == d.id })
            assertEquals("fire hydrants", w.updateDataset(DatasetUpdateRequest(d.id, DatasetUpdateBody(name = "fire hydrants", url = null))).name)
            assertEquals("fire hydrants", w.dataset(DatasetGetRequest(d.id)).name)
            val page = { filter: String ->
                FeatureSearchRequest(datasetId = d.id, format = DatasetFormat.GEOJSON, perPage = 10u, page = 1u, body = FeatureSearchBody(filter))
            }
            val strong = w.searchFeatures(page("pressure:>3"))
            assertEquals(2, strong.features.size)
            assertTrue(strong.features.all { it.attributes!!.contains("\"pressure\"") })
            val near = w.featuresContaining(
                FeatureContainsRequest(
                    datasetId = d.id, format = DatasetFormat.GEOJSON, perPage = 10u, page = 1u,
                    body = FeatureContainsBody(geometry = InputGeometry.Text("42.5079,1.5213"), buffer = 100.0, filter = "kind:hydrant"),
                ),
            )
            assertEquals(2, near.features.size)
            val one = w.datasetFeature(
                FeatureGetRequest(datasetId = d.id, featureId = near.features[0].id, format = DatasetFormat.WKB, xFieldMask = listOf("id", "geometry")),
            )
            assertEquals(near.features[0].id, one.id)
            assertTrue(one.geometry.startsWith("\""), one.geometry)
            assertEquals("{}", one.attributes)
            val bad = assertThrows<WaymarkException.Validation> { runBlocking { w.searchFeatures(page("pressure:>")) } }
            assertTrue(bad.detail.contains("where"), bad.detail)
            assertEquals("deleted", w.deleteDataset(DatasetDeleteRequest(d.id)).status)
            assertThrows<WaymarkException.NotFound> { runBlocking { w.dataset(DatasetGetRequest(d.id)) } }
        }
    }

    @Test
    fun indoorVenueAndStepFreeDirections() {
        runBlocking {
            // the sample venue file of the fixture pack (data-packs/examples/venue-file.geojson)
            val venue = waymark.venue(VenueGetRequest(venueId = "imdf-venue-1"))
            assertEquals("Example Hall", venue.name)
            assertEquals(listOf(0L, 1L), venue.levels.map { it.level })
            assertEquals(listOf("default", "wheelchair"), venue.routingProfiles)
            val route = waymark.indoorDirections(
                IndoorDirectionsRequest(
                    venueId = "imdf-venue-1",
                    origin = IndoorPoint.Coords(48.1003, 11.5001, 0L),
                    destination = IndoorPoint.Coords(48.1001, 11.5001, 1L),
                    language = "en", units = Units.METRIC, optimize = false, mode = "wheelchair",
                )
            )
            val leg = route.routes.single().legs.single()
            assertEquals(1L, leg.endLocation.level)
            assertTrue(leg.steps.any { it.instruction?.summary == "Take the elevator to level 1" }, leg.steps.toString())
            assertFalse(leg.steps.any { it.instruction?.instructionType?.startsWith("stairs") == true })
        }
        val e = assertThrows<WaymarkException.NotFound> {
            runBlocking { waymark.venue(VenueGetRequest(venueId = "any")) }
        }
        assertTrue(e.detail.contains("no venue"), e.detail)
    }

    @Test
    fun installAPackWithProgressThenRemoveIt(@TempDir packs: File) = runBlocking {
        val source = File(Fixture.dir, "built").listFiles()!!.single { it.isDirectory && it.name.startsWith("andorra") }
        Fixture.open(Fixture.key("private_write"), packsDir = packs).use { fresh ->
            assertThrows<WaymarkException.DataUnavailable> { runBlocking { fresh.timezone(Fixture.andorraTimezone) } }
            val seen = mutableListOf<InstallProgress>()
            val status = fresh.installPack("file://" + source.absolutePath) { synchronized(seen) { seen.add(it) } }
            assertEquals("completed", status.status)
            assertEquals("andorra", status.packId)
            assertTrue(seen.isNotEmpty())
            assertEquals(status.bytesTotal, seen.last().bytesDone)
            assertEquals("Europe/Andorra", fresh.timezone(Fixture.andorraTimezone).timezone)
            fresh.removePack(PackRemoveRequest("andorra"))
            assertTrue(fresh.packs(PacksListRequest()).packs.isEmpty())
        }
    }
}

package com.waymark.sdk

import android.content.Context
import com.waymark.core.*
import com.waymark.ffi.InstallProgressListener
import com.waymark.ffi.WaymarkConfig
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.io.File
import java.util.Locale
import com.waymark.ffi.Waymark as NativeWaymark

/** Where the engine keeps its data and which keys it trusts. */
data class WaymarkOptions(
    /** The app's private key (`wm_prv_...`); public keys are refused natively. */
    val key: String,
    /** Publisher keys whose API keys and data packs are trusted. */
    val trustedPublishers: List<String>,
    /** Installed data packs. */
    val packsDir: File,
    /** Quota counters and matrix jobs. */
    val stateDir: File,
    /** Language of localities answers without `language` (default: the device's). */
    val defaultLanguage: String? = Locale.getDefault().language.ifEmpty { null },
    /** Whether the contract's rate limits apply. */
    val rateLimits: Boolean = true,
)

/**
 * Waymark's offline location engine: the whole Location Platform API answered on the device
 * from installed data packs.
 *
 * ```
 * val waymark = Waymark.open(context, BuildConfig.WAYMARK_KEY)
 * val zone = waymark.timezone(TimezoneRequest(LatLng(42.5, 1.52), timestamp = null, ...))
 * ```
 *
 * Every operation is a `suspend` function that runs off the main thread; errors are
 * [com.waymark.core.WaymarkException]s: a sealed hierarchy with one subclass per error of the
 * REST contract (`Unauthenticated`, `Forbidden`, `Validation` with its `fields`, `RateLimited`
 * with `retryAfterMs`, `DataUnavailable`, ...), each with the `detail` message the local server
 * would send. The app's identity (package name and signing certificate) is read from
 * the OS, never passed by the app, and checked by the engine against the key's restrictions.
 */
class Waymark internal constructor(private val native: NativeWaymark) : AutoCloseable {

    companion object {
        /** Asset listing the trusted publisher keys, one per line (`#` starts a comment). */
        const val PUBLISHERS_ASSET = "waymark/trusted-publishers"

        /**
         * Opens the engine for this app with its private [key]: packs in
         * `filesDir/waymark/packs`, state in `filesDir/waymark/state`, trusted publishers from
         * [trustedPublishers] or else the asset [PUBLISHERS_ASSET].
         */
        @JvmStatic
        @JvmOverloads
        fun open(context: Context, key: String, trustedPublishers: List<String>? = null): Waymark {
            val root = File(context.filesDir, "waymark")
            val publishers = trustedPublishers ?: context.assets.open(PUBLISHERS_ASSET).bufferedReader().useLines { lines ->
                lines.map { it.substringBefore('#').trim() }.filter { it.isNotEmpty() }.toList()
            }
            return open(
                WaymarkOptions(key, publishers, File(root, "packs"), File(root, "state")),
                AndroidAppIdentitySource(context),
            )
        }

        /** Opens the engine with the identity [identity] reports (the platform's, or a test's). */
        internal fun open(options: WaymarkOptions, identity: AppIdentitySource): Waymark {
            options.packsDir.mkdirs()
            options.stateDir.mkdirs()
            val native = NativeWaymark.open(
                WaymarkConfig(
                    packsDir = options.packsDir.path,
                    stateDir = options.stateDir.path,
                    key = options.key,
                    trustedPublishers = options.trustedPublishers,
                    app = identity.identity(),
                    defaultLanguage = options.defaultLanguage,
                    rateLimits = options.rateLimits,
                ),
            )
            return Waymark(native)
        }
    }

    /** The generated binding, for the FFI call benchmark. */
    internal val nativeForBenchmark: NativeWaymark get() = native

    /** The identity the engine checks keys against (as the OS reported it). */
    val appIdentity: AppIdentity get() = native.appIdentity()

    private suspend inline fun <T> io(crossinline call: () -> T): T = withContext(Dispatchers.IO) { call() }

    // ----- localities -----

    suspend fun autocomplete(request: AutocompleteRequest): AutocompleteResponse = io { native.localitiesAutocomplete(request) }
    suspend fun details(request: DetailsRequest): DetailsResponse = io { native.localitiesDetails(request) }
    suspend fun geocode(request: GeocodeRequest): GeocodeResponse = io { native.localitiesGeocode(request) }
    suspend fun nearby(request: NearbyRequest): NearbyResponse = io { native.localitiesNearby(request) }

    // ----- geolocation -----

    suspend fun position(request: PositionRequest): GeolocationResult = io { native.geolocationPosition(request) }
    suspend fun timezone(request: TimezoneRequest): TimezoneResult = io { native.geolocationTimezone(request) }

    // ----- stores, zones -----

    suspend fun storesSearch(request: StoresSearchRequest): StoresSearchResponse = io { native.storesSearch(request) }
    suspend fun storesBounds(request: StoresBoundsRequest): StoresBoundsResponse = io { native.storesBounds(request) }
    suspend fun updateZones(request: ZonesUpdateRequest): ZonesUpdateResponse = io { native.zonesUpdate(request) }

    // ----- datasets -----

    suspend fun datasets(request: DatasetListRequest): DatasetListResponse = io { native.datasetsList(request) }
    suspend fun dataset(request: DatasetGetRequest): Dataset = io { native.datasetsGet(request) }
    suspend fun updateDataset(request: DatasetUpdateRequest): Dataset = native.datasetsUpdate(request)
    suspend fun datasetStatus(request: DatasetStatusRequest): ImportRun = io { native.datasetsStatus(request) }
    suspend fun datasetFeature(request: FeatureGetRequest): DatasetFeature = io { native.datasetsFeatureGet(request) }
    suspend fun searchFeatures(request: FeatureSearchRequest): FeatureSearchResponse = io { native.datasetsFeatureSearch(request) }
    suspend fun featuresContaining(request: FeatureContainsRequest): FeatureSearchResponse = io { native.datasetsFeatureContains(request) }

    // ----- indoor -----

    suspend fun venue(request: VenueGetRequest): Venue = io { native.indoorVenue(request) }
    suspend fun searchVenuePois(request: PoiSearchRequest): PoiSearchResponse = io { native.indoorPoiSearch(request) }
    suspend fun indoorDirections(request: IndoorDirectionsRequest): IndoorDirectionsResponse = native.indoorDirections(request)

    // ----- distance -----

    suspend fun route(request: RouteRequest): RouteResponse = native.distanceRoute(request)
    suspend fun tolls(request: TollsRequest): TollsResponse = native.distanceTolls(request)
    suspend fun isochrone(request: IsochroneRequest): IsochroneResponse = native.distanceIsochrone(request)

    /** The whole matrix, computed now and awaited. */
    suspend fun matrix(request: MatrixCreateRequest): MatrixData = native.distanceMatrix(request)
    suspend fun createMatrixJob(request: MatrixCreateRequest): MatrixCreateResponse = io { native.distanceMatrixCreate(request) }
    suspend fun matrixJobStatus(request: MatrixStatusRequest): MatrixStatusResponse = io { native.distanceMatrixStatus(request) }
    suspend fun matrixJobResult(request: MatrixResultRequest): MatrixResult = io { native.distanceMatrixResult(request) }

    // ----- three-word addresses -----

    suspend fun autosuggest(request: AutosuggestRequest): AutosuggestResponse = io { native.threewordsAutosuggest(request) }
    suspend fun convertTo3wa(request: ConvertTo3waRequest): ConvertTo3waResponse = io { native.threewordsConvert(request) }

    // ----- data packs (private key with write permission) -----

    suspend fun packs(): PacksListResponse = io { native.packsList() }

    /** Installs the pack at [url] (resumable, verified, atomic); [onProgress] hears each step. */
    suspend fun installPack(url: String, onProgress: ((InstallProgress) -> Unit)? = null): PackInstallStatus =
        native.packsInstall(
            url,
            onProgress?.let { f ->
                object : InstallProgressListener {
                    override fun onProgress(progress: InstallProgress) = f(progress)
                }
            },
        )

    suspend fun removePack(packId: String): PackRemoveResponse = io { native.packsRemove(packId) }

    /** Releases the native engine. */
    override fun close() = native.close()
}

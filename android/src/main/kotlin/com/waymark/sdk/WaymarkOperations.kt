// GENERATED from the endpoint table (waymark_core::endpoint) by `bash bindings/generate.sh`: do not edit.
package com.waymark.sdk

import com.waymark.core.*
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import com.waymark.ffi.Waymark as NativeWaymark

/**
 * Every operation of the Location Platform API, one `suspend` function each, answered by
 * the native engine. Errors are [com.waymark.core.WaymarkException]s.
 */
abstract class WaymarkOperations internal constructor(internal val native: NativeWaymark) {

    /** `GET /localities/autocomplete` */
    suspend fun autocomplete(request: AutocompleteRequest): AutocompleteResponse =
        withContext(Dispatchers.IO) { native.localitiesAutocomplete(request) }

    /** `GET /localities/details` */
    suspend fun details(request: DetailsRequest): DetailsResponse =
        withContext(Dispatchers.IO) { native.localitiesDetails(request) }

    /** `GET /localities/geocode` */
    suspend fun geocode(request: GeocodeRequest): GeocodeResponse =
        withContext(Dispatchers.IO) { native.localitiesGeocode(request) }

    /** `GET /localities/nearby` */
    suspend fun nearby(request: NearbyRequest): NearbyResponse =
        withContext(Dispatchers.IO) { native.localitiesNearby(request) }

    /** `GET /geolocation/position` */
    suspend fun position(request: PositionRequest): GeolocationResult =
        withContext(Dispatchers.IO) { native.geolocationPosition(request) }

    /** `GET /geolocation/timezone` */
    suspend fun timezone(request: TimezoneRequest): TimezoneResult =
        withContext(Dispatchers.IO) { native.geolocationTimezone(request) }

    /** `GET /stores/search` */
    suspend fun storesSearch(request: StoresSearchRequest): StoresSearchResponse =
        withContext(Dispatchers.IO) { native.storesSearch(request) }

    /** `GET /stores/search/bounds` */
    suspend fun storesBounds(request: StoresBoundsRequest): StoresBoundsResponse =
        withContext(Dispatchers.IO) { native.storesBounds(request) }

    /** `PUT /zones` */
    suspend fun updateZones(request: ZonesUpdateRequest): ZonesUpdateResponse =
        native.zonesUpdate(request)

    /** `GET /zones/export` */
    suspend fun exportZones(request: ZonesExportRequest): ZonesExportResponse =
        native.zonesExport(request)

    /** `GET /zones/{zone_id}` */
    suspend fun zone(request: ZoneGetRequest): ZoneRecord =
        withContext(Dispatchers.IO) { native.zonesGet(request) }

    /** `GET /zones` */
    suspend fun zones(request: ZonesListRequest): ZonesListResponse =
        withContext(Dispatchers.IO) { native.zonesList(request) }

    /** `POST /zones` */
    suspend fun createZones(request: ZonesCreateRequest): ZonesUpdateResponse =
        native.zonesCreate(request)

    /** `DELETE /zones/{zone_id}` */
    suspend fun deleteZone(request: ZoneDeleteRequest): ZonesUpdateResponse =
        native.zonesDelete(request)

    /** `GET /datasets` */
    suspend fun datasets(request: DatasetListRequest): DatasetListResponse =
        withContext(Dispatchers.IO) { native.datasetsList(request) }

    /** `POST /datasets` */
    suspend fun createDataset(request: DatasetCreateRequest): Dataset =
        native.datasetsCreate(request)

    /** `DELETE /datasets/{dataset_id}` */
    suspend fun deleteDataset(request: DatasetDeleteRequest): DatasetDeleteResponse =
        native.datasetsDelete(request)

    /** `GET /datasets/{dataset_id}` */
    suspend fun dataset(request: DatasetGetRequest): Dataset =
        withContext(Dispatchers.IO) { native.datasetsGet(request) }

    /** `PUT /datasets/{dataset_id}` */
    suspend fun updateDataset(request: DatasetUpdateRequest): Dataset =
        native.datasetsUpdate(request)

    /** `GET /datasets/{dataset_id}/status` */
    suspend fun datasetStatus(request: DatasetStatusRequest): ImportRun =
        withContext(Dispatchers.IO) { native.datasetsStatus(request) }

    /** `GET /datasets/{dataset_id}/features/{feature_id}` */
    suspend fun datasetFeature(request: FeatureGetRequest): DatasetFeature =
        native.datasetsFeatureGet(request)

    /** `POST /datasets/{dataset_id}/features/search` */
    suspend fun searchFeatures(request: FeatureSearchRequest): FeatureSearchResponse =
        native.datasetsFeatureSearch(request)

    /** `POST /datasets/{dataset_id}/features/contains` */
    suspend fun featuresContaining(request: FeatureContainsRequest): FeatureSearchResponse =
        native.datasetsFeatureContains(request)

    /** `GET /indoor/venues` */
    suspend fun listVenues(request: VenueListRequest): VenueListResponse =
        withContext(Dispatchers.IO) { native.indoorVenueList(request) }

    /** `GET /indoor/venues/{venue_id}` */
    suspend fun venue(request: VenueGetRequest): Venue =
        withContext(Dispatchers.IO) { native.indoorVenue(request) }

    /** `GET /indoor/venues/{venue_id}/pois/search` */
    suspend fun searchVenuePois(request: PoiSearchRequest): PoiSearchResponse =
        withContext(Dispatchers.IO) { native.indoorPoiSearch(request) }

    /** `GET /indoor/directions/{venue_id}` */
    suspend fun indoorDirections(request: IndoorDirectionsRequest): IndoorDirectionsResponse =
        native.indoorDirections(request)

    /** `GET /distance/route/json` */
    suspend fun route(request: RouteRequest): RouteResponse =
        native.distanceRoute(request)

    /** `GET /distance/tolls/json` */
    suspend fun tolls(request: TollsRequest): TollsResponse =
        native.distanceTolls(request)

    /** `GET /distance/isochrone/json` */
    suspend fun isochrone(request: IsochroneRequest): IsochroneResponse =
        native.distanceIsochrone(request)

    /** `POST /distance/matrix/async` */
    suspend fun createMatrixJob(request: MatrixCreateRequest): MatrixCreateResponse =
        native.distanceMatrixCreate(request)

    /** `GET /distance/matrix/async/{matrix_id}/status` */
    suspend fun matrixJobStatus(request: MatrixStatusRequest): MatrixStatusResponse =
        withContext(Dispatchers.IO) { native.distanceMatrixStatus(request) }

    /** `GET /distance/matrix/async/{matrix_id}` */
    suspend fun matrixJobResult(request: MatrixResultRequest): MatrixResult =
        withContext(Dispatchers.IO) { native.distanceMatrixResult(request) }

    /** `GET /threewords/autosuggest` */
    suspend fun autosuggest(request: AutosuggestRequest): AutosuggestResponse =
        withContext(Dispatchers.IO) { native.threewordsAutosuggest(request) }

    /** `GET /threewords/convert-to-3wa` */
    suspend fun convertTo3wa(request: ConvertTo3waRequest): ConvertTo3waResponse =
        withContext(Dispatchers.IO) { native.threewordsConvert(request) }

    /** `GET /threewords/convert-to-coordinates` */
    suspend fun convertToCoordinates(request: ConvertToCoordinatesRequest): ConvertTo3waResponse =
        withContext(Dispatchers.IO) { native.threewordsToCoordinates(request) }

    /** `GET /packs` */
    suspend fun packs(request: PacksListRequest): PacksListResponse =
        native.packsList(request)

    /** `POST /packs` */
    suspend fun startPackInstall(request: PackInstallRequest): PackInstallResponse =
        withContext(Dispatchers.IO) { native.packsInstall(request) }

    /** `GET /packs/installs/{install_id}` */
    suspend fun packInstallStatus(request: PackInstallStatusRequest): PackInstallStatus =
        withContext(Dispatchers.IO) { native.packsInstallStatus(request) }

    /** `DELETE /packs/{pack_id}` */
    suspend fun removePack(request: PackRemoveRequest): PackRemoveResponse =
        native.packsRemove(request)

    /**
     * Runs the operation that answers `endpoint` (`"GET /indoor/venues/v1"`: a method and a
     * concrete path, matched as the local server routes it) on a request in its JSON form and
     * answers in JSON; `null` when no operation of the native SDK answers that path.
     */
    internal suspend fun callJson(endpoint: String, request: String): String? {
        val (method, path) = endpoint.split(' ', limit = 2).let { it[0] to it.getOrElse(1) { "" } }
        val segments = path.trim('/').split('/')
        fun at(m: String, pattern: String): Boolean {
            val parts = pattern.trim('/').split('/')
            return m == method && parts.size == segments.size &&
                parts.zip(segments).all { (p, s) -> p == s || (p.startsWith("{") && s.isNotEmpty()) }
        }
        return when {
            at("GET", "/localities/autocomplete") -> com.waymark.ffi.localitiesAutocompleteResponseToJson(autocomplete(com.waymark.ffi.localitiesAutocompleteRequestFromJson(request)))
            at("GET", "/localities/details") -> com.waymark.ffi.localitiesDetailsResponseToJson(details(com.waymark.ffi.localitiesDetailsRequestFromJson(request)))
            at("GET", "/localities/geocode") -> com.waymark.ffi.localitiesGeocodeResponseToJson(geocode(com.waymark.ffi.localitiesGeocodeRequestFromJson(request)))
            at("GET", "/localities/nearby") -> com.waymark.ffi.localitiesNearbyResponseToJson(nearby(com.waymark.ffi.localitiesNearbyRequestFromJson(request)))
            at("GET", "/geolocation/position") -> com.waymark.ffi.geolocationPositionResponseToJson(position(com.waymark.ffi.geolocationPositionRequestFromJson(request)))
            at("GET", "/geolocation/timezone") -> com.waymark.ffi.geolocationTimezoneResponseToJson(timezone(com.waymark.ffi.geolocationTimezoneRequestFromJson(request)))
            at("GET", "/stores/search") -> com.waymark.ffi.storesSearchResponseToJson(storesSearch(com.waymark.ffi.storesSearchRequestFromJson(request)))
            at("GET", "/stores/search/bounds") -> com.waymark.ffi.storesBoundsResponseToJson(storesBounds(com.waymark.ffi.storesBoundsRequestFromJson(request)))
            at("PUT", "/zones") -> com.waymark.ffi.zonesUpdateResponseToJson(updateZones(com.waymark.ffi.zonesUpdateRequestFromJson(request)))
            at("GET", "/zones/export") -> com.waymark.ffi.zonesExportResponseToJson(exportZones(com.waymark.ffi.zonesExportRequestFromJson(request)))
            at("GET", "/zones/{zone_id}") -> com.waymark.ffi.zonesGetResponseToJson(zone(com.waymark.ffi.zonesGetRequestFromJson(request)))
            at("GET", "/zones") -> com.waymark.ffi.zonesListResponseToJson(zones(com.waymark.ffi.zonesListRequestFromJson(request)))
            at("POST", "/zones") -> com.waymark.ffi.zonesCreateResponseToJson(createZones(com.waymark.ffi.zonesCreateRequestFromJson(request)))
            at("DELETE", "/zones/{zone_id}") -> com.waymark.ffi.zonesDeleteResponseToJson(deleteZone(com.waymark.ffi.zonesDeleteRequestFromJson(request)))
            at("GET", "/datasets") -> com.waymark.ffi.datasetsListResponseToJson(datasets(com.waymark.ffi.datasetsListRequestFromJson(request)))
            at("POST", "/datasets") -> com.waymark.ffi.datasetsCreateResponseToJson(createDataset(com.waymark.ffi.datasetsCreateRequestFromJson(request)))
            at("DELETE", "/datasets/{dataset_id}") -> com.waymark.ffi.datasetsDeleteResponseToJson(deleteDataset(com.waymark.ffi.datasetsDeleteRequestFromJson(request)))
            at("GET", "/datasets/{dataset_id}") -> com.waymark.ffi.datasetsGetResponseToJson(dataset(com.waymark.ffi.datasetsGetRequestFromJson(request)))
            at("PUT", "/datasets/{dataset_id}") -> com.waymark.ffi.datasetsUpdateResponseToJson(updateDataset(com.waymark.ffi.datasetsUpdateRequestFromJson(request)))
            at("GET", "/datasets/{dataset_id}/status") -> com.waymark.ffi.datasetsStatusResponseToJson(datasetStatus(com.waymark.ffi.datasetsStatusRequestFromJson(request)))
            at("GET", "/datasets/{dataset_id}/features/{feature_id}") -> com.waymark.ffi.datasetsFeatureGetResponseToJson(datasetFeature(com.waymark.ffi.datasetsFeatureGetRequestFromJson(request)))
            at("POST", "/datasets/{dataset_id}/features/search") -> com.waymark.ffi.datasetsFeatureSearchResponseToJson(searchFeatures(com.waymark.ffi.datasetsFeatureSearchRequestFromJson(request)))
            at("POST", "/datasets/{dataset_id}/features/contains") -> com.waymark.ffi.datasetsFeatureContainsResponseToJson(featuresContaining(com.waymark.ffi.datasetsFeatureContainsRequestFromJson(request)))
            at("GET", "/indoor/venues") -> com.waymark.ffi.indoorVenueListResponseToJson(listVenues(com.waymark.ffi.indoorVenueListRequestFromJson(request)))
            at("GET", "/indoor/venues/{venue_id}") -> com.waymark.ffi.indoorVenueResponseToJson(venue(com.waymark.ffi.indoorVenueRequestFromJson(request)))
            at("GET", "/indoor/venues/{venue_id}/pois/search") -> com.waymark.ffi.indoorPoiSearchResponseToJson(searchVenuePois(com.waymark.ffi.indoorPoiSearchRequestFromJson(request)))
            at("GET", "/indoor/directions/{venue_id}") -> com.waymark.ffi.indoorDirectionsResponseToJson(indoorDirections(com.waymark.ffi.indoorDirectionsRequestFromJson(request)))
            at("GET", "/distance/route/json") -> com.waymark.ffi.distanceRouteResponseToJson(route(com.waymark.ffi.distanceRouteRequestFromJson(request)))
            at("GET", "/distance/tolls/json") -> com.waymark.ffi.distanceTollsResponseToJson(tolls(com.waymark.ffi.distanceTollsRequestFromJson(request)))
            at("GET", "/distance/isochrone/json") -> com.waymark.ffi.distanceIsochroneResponseToJson(isochrone(com.waymark.ffi.distanceIsochroneRequestFromJson(request)))
            at("POST", "/distance/matrix/async") -> com.waymark.ffi.distanceMatrixCreateResponseToJson(createMatrixJob(com.waymark.ffi.distanceMatrixCreateRequestFromJson(request)))
            at("GET", "/distance/matrix/async/{matrix_id}/status") -> com.waymark.ffi.distanceMatrixStatusResponseToJson(matrixJobStatus(com.waymark.ffi.distanceMatrixStatusRequestFromJson(request)))
            at("GET", "/distance/matrix/async/{matrix_id}") -> com.waymark.ffi.distanceMatrixResultResponseToJson(matrixJobResult(com.waymark.ffi.distanceMatrixResultRequestFromJson(request)))
            at("GET", "/threewords/autosuggest") -> com.waymark.ffi.threewordsAutosuggestResponseToJson(autosuggest(com.waymark.ffi.threewordsAutosuggestRequestFromJson(request)))
            at("GET", "/threewords/convert-to-3wa") -> com.waymark.ffi.threewordsConvertResponseToJson(convertTo3wa(com.waymark.ffi.threewordsConvertRequestFromJson(request)))
            at("GET", "/threewords/convert-to-coordinates") -> com.waymark.ffi.threewordsToCoordinatesResponseToJson(convertToCoordinates(com.waymark.ffi.threewordsToCoordinatesRequestFromJson(request)))
            at("GET", "/packs") -> com.waymark.ffi.packsListResponseToJson(packs(com.waymark.ffi.packsListRequestFromJson(request)))
            at("POST", "/packs") -> com.waymark.ffi.packsInstallResponseToJson(startPackInstall(com.waymark.ffi.packsInstallRequestFromJson(request)))
            at("GET", "/packs/installs/{install_id}") -> com.waymark.ffi.packsInstallStatusResponseToJson(packInstallStatus(com.waymark.ffi.packsInstallStatusRequestFromJson(request)))
            at("DELETE", "/packs/{pack_id}") -> com.waymark.ffi.packsRemoveResponseToJson(removePack(com.waymark.ffi.packsRemoveRequestFromJson(request)))
            else -> null
        }
    }
}

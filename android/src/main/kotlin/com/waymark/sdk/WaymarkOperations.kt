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
        withContext(Dispatchers.IO) { native.datasetsFeatureGet(request) }

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
}

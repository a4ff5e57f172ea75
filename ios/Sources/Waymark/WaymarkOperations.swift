// GENERATED from the endpoint table (waymark_core::endpoint) by `bash bindings/generate.sh`: do not edit.
import Foundation
import WaymarkCore
import WaymarkEngine

/// Every operation of the Location Platform API, one `async` method each, answered by the
/// native engine. Errors are `WaymarkError`s.
extension Waymark {

    /// `GET /localities/autocomplete`
    public func autocomplete(_ request: AutocompleteRequest) async throws -> AutocompleteResponse {
        try await detached { [native] in try native.localitiesAutocomplete(request: request) }
    }

    /// `GET /localities/details`
    public func details(_ request: DetailsRequest) async throws -> DetailsResponse {
        try await detached { [native] in try native.localitiesDetails(request: request) }
    }

    /// `GET /localities/geocode`
    public func geocode(_ request: GeocodeRequest) async throws -> GeocodeResponse {
        try await detached { [native] in try native.localitiesGeocode(request: request) }
    }

    /// `GET /localities/nearby`
    public func nearby(_ request: NearbyRequest) async throws -> NearbyResponse {
        try await detached { [native] in try native.localitiesNearby(request: request) }
    }

    /// `GET /geolocation/position`
    public func position(_ request: PositionRequest) async throws -> GeolocationResult {
        try await detached { [native] in try native.geolocationPosition(request: request) }
    }

    /// `GET /geolocation/timezone`
    public func timezone(_ request: TimezoneRequest) async throws -> TimezoneResult {
        try await detached { [native] in try native.geolocationTimezone(request: request) }
    }

    /// `GET /stores/search`
    public func storesSearch(_ request: StoresSearchRequest) async throws -> StoresSearchResponse {
        try await detached { [native] in try native.storesSearch(request: request) }
    }

    /// `GET /stores/search/bounds`
    public func storesBounds(_ request: StoresBoundsRequest) async throws -> StoresBoundsResponse {
        try await detached { [native] in try native.storesBounds(request: request) }
    }

    /// `PUT /zones`
    public func updateZones(_ request: ZonesUpdateRequest) async throws -> ZonesUpdateResponse {
        try await native.zonesUpdate(request: request)
    }

    /// `GET /zones/export`
    public func exportZones(_ request: ZonesExportRequest) async throws -> ZonesExportResponse {
        try await native.zonesExport(request: request)
    }

    /// `GET /zones/{zone_id}`
    public func zone(_ request: ZoneGetRequest) async throws -> ZoneRecord {
        try await detached { [native] in try native.zonesGet(request: request) }
    }

    /// `GET /zones`
    public func zones(_ request: ZonesListRequest) async throws -> ZonesListResponse {
        try await detached { [native] in try native.zonesList(request: request) }
    }

    /// `POST /zones`
    public func createZones(_ request: ZonesCreateRequest) async throws -> ZonesUpdateResponse {
        try await native.zonesCreate(request: request)
    }

    /// `DELETE /zones/{zone_id}`
    public func deleteZone(_ request: ZoneDeleteRequest) async throws -> ZonesUpdateResponse {
        try await native.zonesDelete(request: request)
    }

    /// `GET /datasets`
    public func datasets(_ request: DatasetListRequest) async throws -> DatasetListResponse {
        try await detached { [native] in try native.datasetsList(request: request) }
    }

    /// `POST /datasets`
    public func createDataset(_ request: DatasetCreateRequest) async throws -> Dataset {
        try await native.datasetsCreate(request: request)
    }

    /// `DELETE /datasets/{dataset_id}`
    public func deleteDataset(_ request: DatasetDeleteRequest) async throws -> DatasetDeleteResponse {
        try await native.datasetsDelete(request: request)
    }

    /// `GET /datasets/{dataset_id}`
    public func dataset(_ request: DatasetGetRequest) async throws -> Dataset {
        try await detached { [native] in try native.datasetsGet(request: request) }
    }

    /// `PUT /datasets/{dataset_id}`
    public func updateDataset(_ request: DatasetUpdateRequest) async throws -> Dataset {
        try await native.datasetsUpdate(request: request)
    }

    /// `GET /datasets/{dataset_id}/status`
    public func datasetStatus(_ request: DatasetStatusRequest) async throws -> ImportRun {
        try await detached { [native] in try native.datasetsStatus(request: request) }
    }

    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    public func datasetFeature(_ request: FeatureGetRequest) async throws -> DatasetFeature {
        try await native.datasetsFeatureGet(request: request)
    }

    /// `POST /datasets/{dataset_id}/features/search`
    public func searchFeatures(_ request: FeatureSearchRequest) async throws -> FeatureSearchResponse {
        try await native.datasetsFeatureSearch(request: request)
    }

    /// `POST /datasets/{dataset_id}/features/contains`
    public func featuresContaining(_ request: FeatureContainsRequest) async throws -> FeatureSearchResponse {
        try await native.datasetsFeatureContains(request: request)
    }

    /// `GET /indoor/venues`
    public func listVenues(_ request: VenueListRequest) async throws -> VenueListResponse {
        try await detached { [native] in try native.indoorVenueList(request: request) }
    }

    /// `GET /indoor/venues/{venue_id}`
    public func venue(_ request: VenueGetRequest) async throws -> Venue {
        try await detached { [native] in try native.indoorVenue(request: request) }
    }

    /// `GET /indoor/venues/{venue_id}/pois/search`
    public func searchVenuePois(_ request: PoiSearchRequest) async throws -> PoiSearchResponse {
        try await detached { [native] in try native.indoorPoiSearch(request: request) }
    }

    /// `GET /indoor/directions/{venue_id}`
    public func indoorDirections(_ request: IndoorDirectionsRequest) async throws -> IndoorDirectionsResponse {
        try await native.indoorDirections(request: request)
    }

    /// `GET /distance/route/json`
    public func route(_ request: RouteRequest) async throws -> RouteResponse {
        try await native.distanceRoute(request: request)
    }

    /// `GET /distance/tolls/json`
    public func tolls(_ request: TollsRequest) async throws -> TollsResponse {
        try await native.distanceTolls(request: request)
    }

    /// `GET /distance/isochrone/json`
    public func isochrone(_ request: IsochroneRequest) async throws -> IsochroneResponse {
        try await native.distanceIsochrone(request: request)
    }

    /// `POST /distance/matrix/async`
    public func createMatrixJob(_ request: MatrixCreateRequest) async throws -> MatrixCreateResponse {
        try await native.distanceMatrixCreate(request: request)
    }

    /// `GET /distance/matrix/async/{matrix_id}/status`
    public func matrixJobStatus(_ request: MatrixStatusRequest) async throws -> MatrixStatusResponse {
        try await detached { [native] in try native.distanceMatrixStatus(request: request) }
    }

    /// `GET /distance/matrix/async/{matrix_id}`
    public func matrixJobResult(_ request: MatrixResultRequest) async throws -> MatrixResult {
        try await detached { [native] in try native.distanceMatrixResult(request: request) }
    }

    /// `GET /threewords/autosuggest`
    public func autosuggest(_ request: AutosuggestRequest) async throws -> AutosuggestResponse {
        try await detached { [native] in try native.threewordsAutosuggest(request: request) }
    }

    /// `GET /threewords/convert-to-3wa`
    public func convertTo3wa(_ request: ConvertTo3waRequest) async throws -> ConvertTo3waResponse {
        try await detached { [native] in try native.threewordsConvert(request: request) }
    }

    /// `GET /threewords/convert-to-coordinates`
    public func convertToCoordinates(_ request: ConvertToCoordinatesRequest) async throws -> ConvertTo3waResponse {
        try await detached { [native] in try native.threewordsToCoordinates(request: request) }
    }

    /// `GET /packs`
    public func packs(_ request: PacksListRequest) async throws -> PacksListResponse {
        try await native.packsList(request: request)
    }

    /// `POST /packs`
    public func startPackInstall(_ request: PackInstallRequest) async throws -> PackInstallResponse {
        try await detached { [native] in try native.packsInstall(request: request) }
    }

    /// `GET /packs/installs/{install_id}`
    public func packInstallStatus(_ request: PackInstallStatusRequest) async throws -> PackInstallStatus {
        try await detached { [native] in try native.packsInstallStatus(request: request) }
    }

    /// `DELETE /packs/{pack_id}`
    public func removePack(_ request: PackRemoveRequest) async throws -> PackRemoveResponse {
        try await native.packsRemove(request: request)
    }
}

// Mirrors android/src/test/kotlin (identity accepted/refused, operations on the sample pack).
// NOT RUN: no Swift compiler on the project's machines; see ios/README.md. Expects the
// environment variable WAYMARK_FIXTURE pointing at the directory `sdk-fixture --out` made.
import XCTest
@testable import Waymark
import WaymarkCore
import WaymarkEngine

struct ExplicitIdentity: AppIdentitySource {
    let value: AppIdentity
    func identity() -> AppIdentity { value }
}

final class WaymarkTests: XCTestCase {
    struct Fixture: Decodable {
        let publisher: String
        let packs_dir: String
        let keys: [String: String]
        let ios_bundle: String
    }

    func fixture() throws -> Fixture {
        let dir = try XCTUnwrap(ProcessInfo.processInfo.environment["WAYMARK_FIXTURE"])
        let data = try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent("fixture.json"))
        return try JSONDecoder().decode(Fixture.self, from: data)
    }

    func open(_ key: String, bundle: String?) throws -> Waymark {
        let f = try fixture()
        var options = WaymarkOptions(key: try XCTUnwrap(f.keys[key]), trustedPublishers: [f.publisher], rateLimits: false)
        options.packsDirectory = URL(fileURLWithPath: f.packs_dir)
        options.stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        return try Waymark.open(options, identity: ExplicitIdentity(value: AppIdentity(iosBundleId: bundle, androidPackage: nil, androidCertSha1: nil)))
    }

    func andorra() -> TimezoneRequest {
        TimezoneRequest(location: LatLng(lat: 42.5063, lng: 1.5218), timestamp: 1767225600)
    }

    func testIosKeyWithItsBundleIdAnswers() async throws {
        let f = try fixture()
        let waymark = try open("ios", bundle: f.ios_bundle)
        let zone = try await waymark.timezone(andorra())
        XCTAssertEqual(zone.timezone, "Europe/Andorra")
    }

    func testIosKeyWithAnotherBundleIdIsForbidden() async throws {
        let waymark = try open("ios", bundle: "com.other.app")
        do {
            _ = try await waymark.timezone(andorra())
            XCTFail("expected forbidden")
        } catch WaymarkError.Forbidden(let detail) {
            XCTAssertTrue(detail.contains("com.other.app"))
        }
    }

    func testIosKeyWithoutBundleIdIsForbidden() async throws {
        let waymark = try open("ios", bundle: nil)
        do {
            _ = try await waymark.timezone(andorra())
            XCTFail("expected forbidden")
        } catch WaymarkError.Forbidden {
        }
    }

    func testPublicKeyIsRefused() throws {
        XCTAssertThrowsError(try open("public", bundle: "com.waymark.sample"))
    }

    func testRouteAcrossAndorra() async throws {
        let waymark = try open("private", bundle: nil)
        let json = #"{"origin":{"lat":42.5078,"lng":1.5211},"destination":{"lat":42.5346,"lng":1.5806}}"#
        let route = try await waymark.route(try distanceRouteRequestFromJson(json: json))
        XCTAssertEqual(route.status, .ok)
    }

    func testReleasingMemoryChangesNoAnswer() async throws {
        let waymark = try open("private", bundle: nil)
        let json = #"{"origin":{"lat":42.5078,"lng":1.5211},"destination":{"lat":42.5346,"lng":1.5806}}"#
        let before = try await waymark.route(try distanceRouteRequestFromJson(json: json))
        let released = waymark.releaseMemory()
        XCTAssertGreaterThanOrEqual(released.buffers, 1)
        let after = try await waymark.route(try distanceRouteRequestFromJson(json: json))
        XCTAssertEqual(try distanceRouteResponseToJson(value: before), try distanceRouteResponseToJson(value: after))
    }
}

package com.waymark.sdk

import com.waymark.core.AppIdentity
import com.waymark.core.LatLng
import com.waymark.core.TimezoneRequest
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import java.nio.file.Files

/**
 * What `sdk-fixture --out DIR` prepared (tests/src/bin/sdk-fixture.rs): the Andorra sample pack
 * installed in `DIR/packs`, the publisher's key and keys of every kind.
 */
object Fixture {
    val dir: File = File(
        System.getProperty("waymark.fixture")
            ?: error("set -Dwaymark.fixture to the directory `sdk-fixture --out` prepared"),
    )
    private val json: JsonObject = Json.parseToJsonElement(File(dir, "fixture.json").readText()).jsonObject

    val publisher: String = json.getValue("publisher").jsonPrimitive.content
    val packsDir: File = File(json.getValue("packs_dir").jsonPrimitive.content)
    val androidPackage: String = json.getValue("android_package").jsonPrimitive.content
    val androidSha1: String = json.getValue("android_sha1").jsonPrimitive.content
    val iosBundle: String = json.getValue("ios_bundle").jsonPrimitive.content
    val knownIp: String? = json["known_ip"]?.jsonPrimitive?.contentOrNull

    fun key(name: String): String = json.getValue("keys").jsonObject.getValue(name).jsonPrimitive.content

    val noIdentity = AppIdentity(iosBundleId = null, androidPackage = null, androidCertSha1 = null)

    fun android(pkg: String?, sha1: String?) = AppIdentity(iosBundleId = null, androidPackage = pkg, androidCertSha1 = sha1)

    fun ios(bundle: String?) = AppIdentity(iosBundleId = bundle, androidPackage = null, androidCertSha1 = null)

    /** The state directories of the engines the tests open, removed when the JVM exits. */
    private val stateRoot: File = Files.createTempDirectory("waymark-kotlin-tests").toFile().also { root ->
        Runtime.getRuntime().addShutdownHook(Thread { root.deleteRecursively() })
    }

    /** Opens Waymark on the fixture's packs with [key] and the given identity (own state dir). */
    fun open(
        key: String,
        identity: AppIdentity = noIdentity,
        packsDir: File = this.packsDir,
        rateLimits: Boolean = false,
    ): Waymark = Waymark.open(
        WaymarkOptions(
            key = key,
            trustedPublishers = listOf(publisher),
            packsDir = packsDir,
            stateDir = Files.createTempDirectory(stateRoot.toPath(), "state").toFile(),
            defaultLanguage = "en",
            rateLimits = rateLimits,
        ),
        AppIdentitySource { identity },
    )

    /** Andorra la Vella at 2026-01-01T00:00Z. */
    val andorraTimezone = TimezoneRequest(location = LatLng(42.5063, 1.5218), timestamp = 1767225600L)
}

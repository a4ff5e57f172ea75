package com.waymark.sdk

import android.content.ComponentCallbacks2
import android.content.Context
import android.content.res.Configuration
import com.waymark.core.*
import com.waymark.ffi.InstallProgressListener
import com.waymark.ffi.WaymarkConfig
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
    /**
     * A ceiling on the app's resident set, in megabytes: after every call that leaves it over,
     * the engine unmaps the pages of the packs' mapped routing layouts (a country pack's reach
     * a gigabyte after many routes). `null`: no ceiling.
     */
    val residentCeilingMb: Int? = null,
) {
    init {
        require(residentCeilingMb == null || residentCeilingMb > 0) {
            "residentCeilingMb must be a positive number of megabytes, or null for no ceiling"
        }
    }
}

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
class Waymark internal constructor(native: NativeWaymark) : WaymarkOperations(native), AutoCloseable {

    /** The callbacks [open] registered with the app's context, unregistered by [close]. */
    private var trimCallbacks: Pair<Context, ComponentCallbacks2>? = null

    companion object {
        /** Asset listing the trusted publisher keys, one per line (`#` starts a comment). */
        const val PUBLISHERS_ASSET = "waymark/trusted-publishers"

        /**
         * Opens the engine for this app with its private [key]: packs in
         * `filesDir/waymark/packs`, state in `filesDir/waymark/state`, trusted publishers from
         * [trustedPublishers] or else the asset [PUBLISHERS_ASSET]; [residentCeilingMb] as in
         * [WaymarkOptions].
         */
        @JvmStatic
        @JvmOverloads
        fun open(
            context: Context,
            key: String,
            trustedPublishers: List<String>? = null,
            residentCeilingMb: Int? = null,
        ): Waymark {
            val root = File(context.filesDir, "waymark")
            val publishers = trustedPublishers ?: context.assets.open(PUBLISHERS_ASSET).bufferedReader().useLines { lines ->
                lines.map { it.substringBefore('#').trim() }.filter { it.isNotEmpty() }.toList()
            }
            val waymark = open(
                WaymarkOptions(
                    key, publishers, File(root, "packs"), File(root, "state"),
                    residentCeilingMb = residentCeilingMb,
                ),
                AndroidAppIdentitySource(context),
            )
            waymark.releaseMemoryWhenAsked(context.applicationContext)
            return waymark
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
                    residentCeilingMb = options.residentCeilingMb?.toUInt(),
                ),
            )
            return Waymark(native)
        }
    }

    /** The generated binding, for the FFI call benchmark. */
    internal val nativeForBenchmark: NativeWaymark get() = native

    /** The identity the engine checks keys against (as the OS reported it). */
    val appIdentity: AppIdentity get() = native.appIdentity()

    // Every operation of the endpoint table is a method of [WaymarkOperations] (generated).
    // The native variants:

    /** The whole matrix, computed now and awaited (no 200-element limit). */
    suspend fun matrix(request: MatrixCreateRequest): MatrixData = native.distanceMatrix(request)

    /**
     * Installs the pack at [url] (resumable, verified, atomic) and awaits it; [onProgress]
     * hears each step. ([startPackInstall] starts the same install as a job.)
     */
    suspend fun installPack(url: String, onProgress: ((InstallProgress) -> Unit)? = null): PackInstallStatus =
        native.installPack(
            url,
            onProgress?.let { f ->
                object : InstallProgressListener {
                    override fun onProgress(progress: InstallProgress) = f(progress)
                }
            },
        )

    /**
     * Hands memory back to the system without closing anything: the pages of the packs'
     * mapped routing layouts leave the process (after many routes on a country pack they can
     * reach a gigabyte of its resident set) and the buffers kept between requests are dropped.
     * Answers are unchanged; the next queries map again the pages they read. An engine opened
     * with a [Context] calls it itself when the system asks apps to trim their memory.
     */
    fun releaseMemory(): ReleasedMemory = native.releaseMemory()

    /**
     * Unmaps the pages of the packs' mapped routing layouts only, keeping the buffers kept
     * between requests: for an app that holds its resident set under a ceiling, after a request
     * that took it over (the next requests do not allocate their buffers again).
     */
    fun releaseMappedPages(): ReleasedMemory = native.releaseMappedPages()

    /**
     * Whether a trim [level] of [ComponentCallbacks2.onTrimMemory] asks for [releaseMemory]:
     * the app's UI is hidden, it is in the background list, or memory runs low while it runs.
     */
    internal fun releasesAt(level: Int): Boolean =
        level >= ComponentCallbacks2.TRIM_MEMORY_RUNNING_LOW

    private fun releaseMemoryWhenAsked(context: Context) {
        val callbacks = object : ComponentCallbacks2 {
            override fun onTrimMemory(level: Int) {
                if (releasesAt(level)) releaseMemory()
            }

            override fun onLowMemory() {
                releaseMemory()
            }

            override fun onConfigurationChanged(newConfig: Configuration) {}
        }
        context.registerComponentCallbacks(callbacks)
        trimCallbacks = context to callbacks
    }

    /** Releases the native engine. */
    override fun close() {
        trimCallbacks?.let { (context, callbacks) -> context.unregisterComponentCallbacks(callbacks) }
        trimCallbacks = null
        native.close()
    }
}

/**
 * The CDP a browser session's clients may use: an allow-list of methods by the session they are sent on, some
 * with their parameters checked. A method not listed is refused, so a method Chromium adds is refused until it
 * is read and listed. docs/guide.md ("Over CDP") lists the same.
 */

/** Why a command's parameters are refused, or null when they are served. */
export type ParamCheck = (params: Record<string, unknown>) => string | null;

/**
 * Methods of a page's (or worker's, or frame's) own session, by domain. Left out: reading the server's files
 * (`DOM.setFileInputFiles`, `Network.loadNetworkResource`), the browser's or other contexts' data
 * (`Network.clearBrowserCache`, `Storage.clearDataForOrigin`, ...), certificate overrides, a page's DevTools
 * binding (`Target.exposeDevToolsProtocol`), contexts (browser level only), and what writes to disk.
 */
export const PAGE_METHODS: Record<string, string> = {
  Accessibility:
    'disable enable getPartialAXTree getFullAXTree getRootAXNode getAXNodeAndAncestors getChildAXNodes ' +
    'queryAXTree',
  Animation:
    'disable enable getCurrentTime getPlaybackRate releaseAnimations resolveAnimation seekAnimations ' +
    'setPaused setPlaybackRate setTiming',
  Audits: 'getEncodedResponse disable enable checkFormsIssues',
  Autofill: 'trigger setAddresses disable enable',
  BackgroundService: 'startObserving stopObserving setRecording clearEvents',
  CacheStorage: 'deleteCache deleteEntry requestCacheNames requestCachedResponse requestEntries',
  Console: 'clearMessages disable enable',
  CSS:
    'addRule collectClassNames createStyleSheet disable enable forcePseudoState forceStartingStyle ' +
    'getBackgroundColors getComputedStyleForNode resolveValues getLonghandProperties ' +
    'getInlineStylesForNode getAnimatedStylesForNode getMatchedStylesForNode getEnvironmentVariables ' +
    'getMediaQueries getPlatformFontsForNode getStyleSheetText getLayersForNode getLocationForSelector ' +
    'trackComputedStyleUpdatesForNode trackComputedStyleUpdates takeComputedStyleUpdates ' +
    'setEffectivePropertyValueForNode setPropertyRulePropertyName setKeyframeKey setMediaText ' +
    'setContainerQueryText setContainerQueryConditionText setSupportsText setNavigationText setScopeText ' +
    'setRuleSelector setStyleSheetText setStyleTexts startRuleUsageTracking stopRuleUsageTracking ' +
    'takeCoverageDelta setLocalFontsEnabled',
  Debugger:
    'continueToLocation disable enable evaluateOnCallFrame getPossibleBreakpoints getScriptSource ' +
    'disassembleWasmModule nextWasmDisassemblyChunk getWasmBytecode getStackTrace pause pauseOnAsyncCall ' +
    'removeBreakpoint restartFrame resume searchInContent setAsyncCallStackDepth ' +
    'setBlackboxExecutionContexts setBlackboxPatterns setBlackboxedRanges setBreakpoint ' +
    'setInstrumentationBreakpoint setBreakpointByUrl setBreakpointOnFunctionCall setBreakpointsActive ' +
    'setPauseOnExceptions setReturnValue setScriptSource setSkipAllPauses setVariableValue stepInto ' +
    'stepOut stepOver',
  DeviceAccess: 'enable disable selectPrompt cancelPrompt',
  DeviceOrientation: 'clearDeviceOrientationOverride setDeviceOrientationOverride',
  DOM:
    'collectClassNamesFromSubtree copyTo describeNode scrollIntoViewIfNeeded disable discardSearchResults ' +
    'enable focus getAttributes getBoxModel getContentQuads getDocument getFlattenedDocument ' +
    'getNodesForSubtreeByStyle getNodeForLocation getOuterHTML getRelayoutBoundary getSearchResults ' +
    'hideHighlight highlightNode highlightRect markUndoableState moveTo performSearch ' +
    'pushNodeByPathToFrontend pushNodesByBackendIdsToFrontend querySelector querySelectorAll ' +
    'getTopLayerElements getElementByRelation redo removeAttribute removeNode requestChildNodes ' +
    'requestNode resolveNode setAttributeValue setAttributesAsText setNodeStackTracesEnabled ' +
    'getNodeStackTraces getFileInfo getDetachedDomNodes setInspectedNode setNodeName setNodeValue ' +
    'setOuterHTML undo getFrameOwner getContainerForNode getQueryingDescendantsForContainer ' +
    'getAnchorElement forceShowPopover getImplicitAnchorCandidates forceShowInterest setTextMarker ' +
    'clearTextMarkers',
  DOMDebugger:
    'getEventListeners removeDOMBreakpoint removeEventListenerBreakpoint removeInstrumentationBreakpoint ' +
    'removeXHRBreakpoint setBreakOnCSPViolation setDOMBreakpoint setEventListenerBreakpoint ' +
    'setInstrumentationBreakpoint setXHRBreakpoint',
  DOMSnapshot: 'disable enable getSnapshot captureSnapshot',
  DOMStorage: 'clear disable enable getDOMStorageItems removeDOMStorageItem setDOMStorageItem',
  Emulation:
    'canEmulate clearDeviceMetricsOverride clearGeolocationOverride resetPageScaleFactor ' +
    'setFocusEmulationEnabled setAutoDarkModeOverride setCPUThrottlingRate ' +
    'setDefaultBackgroundColorOverride setSafeAreaInsetsOverride setVirtualKeyboardGeometryOverride ' +
    'setDeviceMetricsOverride setDevicePostureOverride clearDevicePostureOverride ' +
    'setDisplayFeaturesOverride clearDisplayFeaturesOverride setScrollbarsHidden ' +
    'setDocumentCookieDisabled setEmitTouchEventsForMouse setEmulatedMedia setEmulatedVisionDeficiency ' +
    'setEmulatedOSTextScale setGeolocationOverride getOverriddenSensorInformation ' +
    'setSensorOverrideEnabled setSensorOverrideReadings setPressureSourceOverrideEnabled ' +
    'setPressureStateOverride setIdleOverride clearIdleOverride setNavigatorOverrides setPageScaleFactor ' +
    'setScriptExecutionDisabled setTouchEmulationEnabled setVirtualTimePolicy setLocaleOverride ' +
    'setTimezoneOverride setVisibleSize setDisabledImageTypes setDataSaverOverride ' +
    'setHardwareConcurrencyOverride setCPUPerformanceOverride setUserAgentOverride setAutomationOverride ' +
    'setSmallViewportHeightDifferenceOverride getScreenInfos addScreen updateScreen removeScreen ' +
    'setPrimaryScreen',
  EventBreakpoints: 'setInstrumentationBreakpoint removeInstrumentationBreakpoint disable',
  FedCm: 'enable disable selectAccount clickDialogButton dismissDialog resetCooldown',
  Fetch:
    'disable enable failRequest fulfillRequest continueRequest continueWithAuth continueResponse ' +
    'getResponseBody takeResponseBodyAsStream',
  FindInPage: 'findFirst findNext findPrev stop',
  HeadlessExperimental: 'beginFrame disable enable',
  HeapProfiler:
    'addInspectedHeapObject collectGarbage disable enable getHeapObjectId getObjectByHeapObjectId ' +
    'getSamplingProfile startSampling startTrackingHeapObjects stopSampling stopTrackingHeapObjects ' +
    'takeHeapSnapshot',
  IndexedDB:
    'clearObjectStore deleteDatabase deleteObjectStoreEntries disable enable requestData getMetadata ' +
    'requestDatabase requestDatabaseNames',
  Input:
    'dispatchDragEvent dispatchKeyEvent insertText imeSetComposition dispatchMouseEvent ' +
    'dispatchTouchEvent cancelDragging emulateTouchFromMouseEvent setIgnoreInputEvents setInterceptDrags ' +
    'synthesizePinchGesture synthesizeScrollGesture synthesizeTapGesture',
  Inspector: 'disable enable',
  IO: 'close read resolveBlob',
  LayerTree:
    'compositingReasons disable enable loadSnapshot makeSnapshot profileSnapshot releaseSnapshot ' +
    'replaySnapshot snapshotCommandLog',
  Log: 'clear disable enable startViolationsReport stopViolationsReport',
  Media: 'enable disable',
  Network:
    'canClearBrowserCache canClearBrowserCookies canEmulateNetworkConditions deleteCookies disable ' +
    'emulateNetworkConditions emulateNetworkConditionsByRule overrideNetworkState enable ' +
    'configureDurableMessages getAllCookies getCertificate getCookies getResponseBody getRequestPostData ' +
    'replayXHR searchInResponseBody setBlockedURLs setBypassServiceWorker setCacheDisabled setCookie ' +
    'setCookies setExtraHTTPHeaders setAttachDebugStack setUserAgentOverride streamResourceContent ' +
    'getSecurityIsolationStatus enableReportingApi fetchSchemefulSite',
  Overlay:
    'disable enable getHighlightObjectForTest getGridHighlightObjectsForTest ' +
    'getSourceOrderHighlightObjectForTest hideHighlight highlightFrame highlightNode highlightQuad ' +
    'highlightRect highlightSourceOrder setInspectMode setShowAdHighlights setPausedInDebuggerMessage ' +
    'setShowDebugBorders setShowFPSCounter setShowGridOverlays setShowFlexOverlays ' +
    'setShowScrollSnapOverlays setShowContainerQueryOverlays setShowInspectedElementAnchor ' +
    'setShowPaintRects setShowLayoutShiftRegions setShowScrollBottleneckRects setShowHitTestBorders ' +
    'setShowWebVitals setShowViewportSizeOnResize setShowHinge setShowDisplayCutout ' +
    'setShowIsolatedElements setShowWindowControlsOverlay',
  Page:
    'addScriptToEvaluateOnLoad addScriptToEvaluateOnNewDocument bringToFront captureScreenshot ' +
    'captureSnapshot clearDeviceMetricsOverride clearDeviceOrientationOverride clearGeolocationOverride ' +
    'createIsolatedWorld deleteCookie disable enable getAppManifest getInstallabilityErrors ' +
    'getManifestIcons getAppId getSubApps getSiblingSubApps getAdScriptAncestry getFrameTree ' +
    'getLayoutMetrics getNavigationHistory resetNavigationHistory getResourceContent getResourceTree ' +
    'handleJavaScriptDialog navigate navigateToHistoryEntry printToPDF reload ' +
    'removeScriptToEvaluateOnLoad removeScriptToEvaluateOnNewDocument screencastFrameAck searchInResource ' +
    'setAdBlockingEnabled setBypassCSP getPermissionsPolicyState getOriginTrials setDeviceMetricsOverride ' +
    'setDeviceOrientationOverride setFontFamilies setFontSizes setDocumentContent setGeolocationOverride ' +
    'setLifecycleEventsEnabled setTouchEmulationEnabled startScreencast stopLoading close ' +
    'setWebLifecycleState stopScreencast produceCompilationCache addCompilationCache ' +
    'clearCompilationCache setSPCTransactionMode setRPHRegistrationMode waitForDebugger ' +
    'setInterceptFileChooserDialog setPrerenderingAllowed getAnnotatedPageContent',
  Performance: 'disable enable setTimeDomain getMetrics',
  PerformanceTimeline: 'enable',
  Preload: 'enable disable',
  Profiler:
    'disable enable getBestEffortCoverage setSamplingInterval start startPreciseCoverage stop ' +
    'stopPreciseCoverage takePreciseCoverage',
  Runtime:
    'awaitPromise callFunctionOn compileScript disable discardConsoleEntries enable evaluate getIsolateId ' +
    'getHeapUsage getProperties globalLexicalScopeNames queryObjects releaseObject releaseObjectGroup ' +
    'runIfWaitingForDebugger runScript setAsyncCallStackDepth setCustomObjectFormatterEnabled ' +
    'setMaxCallStackSizeToCapture terminateExecution addBinding removeBinding getExceptionDetails',
  Schema: 'getDomains',
  Security: 'disable enable',
  ServiceWorker:
    'deliverPushMessage disable dispatchSyncEvent dispatchPeriodicSyncEvent enable ' +
    'setForceUpdateOnPageLoad skipWaiting startWorker stopAllWorkers stopWorker unregister ' +
    'updateRegistration',
  Storage:
    'getStorageKeyForFrame getStorageKey getCookies setCookies clearCookies getUsageAndQuota ' +
    'trackCacheStorageForOrigin trackCacheStorageForStorageKey trackIndexedDBForOrigin ' +
    'trackIndexedDBForStorageKey untrackCacheStorageForOrigin untrackCacheStorageForStorageKey ' +
    'untrackIndexedDBForOrigin untrackIndexedDBForStorageKey setStorageBucketTracking',
  Target:
    'activateTarget attachToTarget closeTarget createTarget detachFromTarget getTargetInfo getTargets ' +
    'setAutoAttach autoAttachRelated setDiscoverTargets',
  WebAudio: 'enable disable getRealtimeData',
  WebAuthn:
    'enable disable addVirtualAuthenticator setResponseOverrideBits removeVirtualAuthenticator ' +
    'addCredential getCredential getCredentials removeCredential clearCredentials setUserVerified ' +
    'setAutomaticPresenceSimulation setCredentialProperties',
};

/**
 * Methods of the browser's own session (the client's root, or a browser session it attached): its version,
 * permissions and cookies of its contexts, and targets and contexts (src/sessions/cdp-filter.ts scopes them).
 * Download settings are answered without effect (NO_EFFECT).
 */
export const BROWSER_METHODS: Record<string, string> = {
  Browser:
    'getVersion setDownloadBehavior cancelDownload grantPermissions resetPermissions setPermission getWindowForTarget',
  Target:
    'activateTarget attachToTarget attachToBrowserTarget autoAttachRelated closeTarget createBrowserContext ' +
    'createTarget detachFromTarget disposeBrowserContext getBrowserContexts getTargetInfo getTargets ' +
    'setAutoAttach setDiscoverTargets',
  Storage: 'getCookies setCookies clearCookies',
  Schema: 'getDomains',
};

const toSet = (table: Record<string, string>): ReadonlySet<string> =>
  new Set(
    Object.entries(table).flatMap(([domain, names]) => names.split(/\s+/).map((m) => `${domain}.${m}`)),
  );

export const PAGE_ALLOWED = toSet(PAGE_METHODS);
export const BROWSER_ALLOWED = toSet(BROWSER_METHODS);

/** Answered as done, changing nothing: every context denies downloads, so nothing is written to the server's disk. */
export const NO_EFFECT: ReadonlySet<string> = new Set([
  'Browser.setDownloadBehavior',
  'Browser.cancelDownload',
  'Page.setDownloadBehavior',
]);

/**
 * Where a page may be sent: the web (through the guarded proxy) or a document with no network. The URL is read
 * as Chromium reads it (WHATWG parsing: case, spaces, tabs and newlines do not hide a scheme).
 */
export function navigable(url: unknown): boolean {
  if (url === undefined || url === '') return true;
  if (typeof url !== 'string') return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:' || parsed.protocol === 'data:') return true;
  return parsed.href === 'about:blank' || parsed.href === 'about:srcdoc';
}

const NAVIGABLE = 'only http(s), data:, about:blank and about:srcdoc URLs are opened';

/** A response header naming where to go (a redirect) that leaves the web. */
function leavesTheWeb(headers: unknown, binary: unknown): boolean {
  const pairs: [string, string][] = [];
  if (Array.isArray(headers)) {
    for (const h of headers as { name?: unknown; value?: unknown }[])
      pairs.push([String(h?.name), String(h?.value)]);
  }
  if (typeof binary === 'string') {
    for (const line of Buffer.from(binary, 'base64').toString('latin1').split('\0')) {
      const colon = line.indexOf(':');
      if (colon > 0) pairs.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
    }
  }
  return pairs.some(([name, value]) => {
    if (name.trim().toLowerCase() !== 'location') return false;
    try {
      const target = new URL(value, 'https://relative.invalid/');
      return target.protocol !== 'http:' && target.protocol !== 'https:';
    } catch {
      return false;
    }
  });
}

/** Parameter checks of served methods (on any session), with what they refuse in the reference's words. */
export const CHECKS: Record<string, { check: ParamCheck; doc: string }> = {
  'Page.navigate': {
    check: (p) => (navigable(p.url) ? null : NAVIGABLE),
    doc: 'any URL but http(s), `data:`, `about:blank` and `about:srcdoc`, in any spelling',
  },
  'Target.createTarget': {
    check: (p) => (navigable(p.url) ? null : NAVIGABLE),
    doc: 'the same URLs as `Page.navigate`; a context of another session',
  },
  'Input.dispatchDragEvent': {
    check: (p) => {
      const files = (p.data as { files?: unknown } | undefined)?.files;
      return files === undefined || (Array.isArray(files) && files.length === 0)
        ? null
        : "drag data with files reads the server's disk: drop text or items instead";
    },
    doc: '`data.files` (paths on the server); `data.items` (text, HTML, URLs) is served',
  },
  'Fetch.continueRequest': {
    check: (p) =>
      p.url === undefined || (typeof p.url === 'string' && /^https?:$/.test(safeProtocol(p.url)))
        ? null
        : 'a request may only be rewritten to an http(s) URL',
    doc: 'a `url` that is not http(s)',
  },
  'Fetch.fulfillRequest': {
    check: (p) =>
      leavesTheWeb(p.responseHeaders, p.binaryResponseHeaders) ? 'a redirect may only lead to http(s)' : null,
    doc: 'a `Location` header (in `responseHeaders` or `binaryResponseHeaders`) that leaves http(s)',
  },
  'Fetch.continueResponse': {
    check: (p) =>
      leavesTheWeb(p.responseHeaders, p.binaryResponseHeaders) ? 'a redirect may only lead to http(s)' : null,
    doc: 'the same as `Fetch.fulfillRequest`',
  },
};

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

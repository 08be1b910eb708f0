/**
 * rest-proxy: typed Models and Stores persisted to any REST backend through a Rest proxy.
 * This module only re-exports the public surface.
 * @module rest-proxy
 */
export { Model } from './model/Model.js';
export { RecordSnapshot } from './model/Model.js';
export type { DataOf, FieldConfigOf, FieldErrorsOf, FieldsOf, IdOf, ModelClass, ModelInit, PersistOptions, SaveOptions } from './model/Model.js';
export { auto, fieldsFor } from './model/define.js';
export type { AutoField, DefinedModel, DefineOptions, FieldOptions, FieldsData, FieldsInput, FieldsMatch, FieldValue, ProxyOf, RecordOf } from './model/define.js';
export { custom, email, exclusion, format, inclusion, length, presence, range } from './model/validators.js';
export type { FormatOptions, LengthOptions, ListOptions, MessageOptions, PresenceOptions, RangeOptions, ValidatorMessage } from './model/validators.js';
export type { Validator, Validators, ValidatorsOf } from './model/validate.js';
export type { FieldConfig, FieldDeclaration } from './model/fields.js';

export { Store } from './store/Store.js';
export type { FieldName, FilterOf, Group, LoadOptions, SorterOf, StoreConfig, StoreEvents, StoreSnapshot, SyncOptions } from './store/Store.js';
export { ChainedStore } from './store/chained.js';
export type { ChainedStoreConfig, ChainedStoreEvents, ChainedStoreSnapshot } from './store/chained.js';
export { average, count, max, min, sum } from './store/summary.js';
export type { Aggregator, AggregatorKind, LiveSummary, SummarySnapshot } from './store/summary.js';
export type { RemoteSummary } from './store/summaryTypes.js';
export type { CollectOptions, Comparable, FindOptions, GroupedOptions, NumericFieldName, ScopeOptions } from './store/find.js';

export { Proxy } from './proxy/Proxy.js';
export type { BatchOptions, BatchRecords, ProxyConfig, ProxyEvents, ProxyExceptionEvent, ProxyRetryEvent } from './proxy/Proxy.js';
export { ServerProxy } from './proxy/ServerProxy.js';
export type { Params, ServerProxyConfig } from './proxy/ServerProxy.js';
export { AjaxProxy } from './proxy/AjaxProxy.js';
export type { AjaxProxyConfig, FetchFunction, RequestHookContext, ResponseHookContext } from './proxy/AjaxProxy.js';
export { RestProxy, RestProxy as Rest } from './proxy/RestProxy.js';
export type { PresetName, Presets, RestProxyConfig } from './proxy/RestProxy.js';
export { MemoryProxy } from './proxy/MemoryProxy.js';
export type { MemoryProxyConfig } from './proxy/MemoryProxy.js';
export { createProxy, registerProxy } from './proxy/registry.js';
export type { ProxyClass, ProxySpec, ProxyTypeConfig, ProxyTypes } from './proxy/registry.js';
export { getPreset, presetNames, registerPreset } from './proxy/presets/registry.js';
export type { Preset } from './proxy/presets/registry.js';
export type { NormalizedRetry, RetryOptions } from './http/retry.js';
export type { Listener } from './util/events.js';
export { focusManager, onlineManager } from './util/managers.js';
export type { FocusManager, OnlineManager } from './util/managers.js';
export type { StoreState } from './store/freshness.js';
export type { Subscriber } from './util/notify.js';

export { Operation } from './operation/Operation.js';
export type { OperationConfig } from './operation/Operation.js';
export { Request } from './operation/Request.js';
export type { RequestConfig } from './operation/Request.js';
export { Batch } from './operation/Batch.js';
export type { BatchConfig } from './operation/Batch.js';
export { ResultSet } from './operation/ResultSet.js';
export type { ResultSetConfig } from './operation/ResultSet.js';
export { isValidId } from './operation/types.js';
export type { Action, Direction, FieldInfo, FieldType, Filter, FilterOperator, Grouper, ModelClassLike, RecordLike, Sorter, SummaryRequest } from './operation/types.js';

export { JsonReader } from './reader/JsonReader.js';
export type { BodyPath, JsonReaderConfig, ReadContext } from './reader/JsonReader.js';
export { JsonWriter } from './writer/JsonWriter.js';
export type { DateFormat, JsonWriterConfig } from './writer/JsonWriter.js';

export { ProxyError } from './errors/ProxyError.js';
export type { FieldErrors, ProxyErrorDetails, ProxyErrorKind } from './errors/ProxyError.js';
export { BatchError } from './errors/BatchError.js';
export { userMessage } from './errors/userMessage.js';
export type { UserMessages } from './errors/userMessage.js';

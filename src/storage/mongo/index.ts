/**
 * `didvault/mongo`: the MongoDB storage adapter (requires the optional peer `mongodb`).
 */
export { createMongoStorage, MongoStorage, type MongoStorageOptions, type MongoTransactionMode } from './storage.js'

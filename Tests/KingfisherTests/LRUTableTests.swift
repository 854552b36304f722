import Foundation
import Testing
@testable import Kingfisher

/// Checks the hash index and the LRU table against plain models under random operations.
@Suite struct LRUTableTests {
    typealias SeededGenerator = Mutations.SeededGenerator

    @Test(arguments: [1, 2, 3])
    func slotIndexMatchesADictionaryUnderCollisions(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        var index = SlotIndex()
        var model: [Int: Int] = [:]  // slot → hash
        for step in 0..<20_000 {
            let slot = Int.random(in: 0..<300, using: &generator)
            // Few distinct low bits, at both ends of the bucket array: long clusters, some of them
            // wrapping around the end.
            let low = Int.random(in: 0..<6, using: &generator)
            let hash = (Bool.random(using: &generator) ? low : 0xFFFF_FFFF - low) | (slot << 40)
            if let known = model[slot] {
                if step % 3 == 0 {
                    index.remove(hash: known, slot: slot)
                    model[slot] = nil
                }
            } else {
                index.insert(hash: hash, slot: slot)
                model[slot] = hash
            }
            #expect(index.count == model.count)
            if step % 97 == 0 {
                for candidate in 0..<300 {
                    let found = model[candidate].flatMap { hash in index.find(hash: hash) { $0 == candidate } }
                    #expect(found == (model[candidate] == nil ? nil : candidate))
                }
            }
        }
        for (slot, hash) in model { index.remove(hash: hash, slot: slot) }
        #expect(index.count == 0 && index.buckets.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [7, 8])
    func backendMatchesAnLRUModel(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        var config = MemoryStorage.Config(totalCostLimit: 200, cleanInterval: 0)
        config.countLimit = 12
        config.expiration = .never
        let storage = MemoryStorage.Backend<CostItem>(config: config)
        var order: [String] = []  // least recently used first
        var costs: [String: Int] = [:]
        func evict(toFit cost: Int) {
            while !order.isEmpty && (order.count + 1 > 12 || costs.values.reduce(0, +) + cost > 200) {
                costs[order.removeFirst()] = nil
            }
        }
        for step in 0..<5_000 {
            let key = "key-\(Int.random(in: 0..<40, using: &generator))"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let cost = Int.random(in: 0...60, using: &generator)
                storage.store(value: CostItem(id: step, cacheCost: cost), forKey: key)
                order.removeAll { $0 == key }
                costs[key] = nil
                evict(toFit: cost)
                order.append(key)
                costs[key] = cost
            case 5..<8:
                let hit = storage.value(forKey: key)
                #expect((hit != nil) == (costs[key] != nil))
                #expect(hit?.cacheCost == costs[key])
                if hit != nil {
                    order.removeAll { $0 == key }
                    order.append(key)
                }
            case 8:
                storage.remove(forKey: key)
                order.removeAll { $0 == key }
                costs[key] = nil
            default:
                #expect(storage.isCached(forKey: key) == (costs[key] != nil))
            }
            #expect(storage.keys == Set(order))
            #expect(storage.totalCost == costs.values.reduce(0, +))
        }
    }
}

import type { Delivery, DeliveryLog } from '../../lambdas/ports/delivery-log';

/** A DeliveryLog over a map, for unit tests of the delivery use cases; `deliveries` shows what it holds. */
export function inMemoryDeliveryLog(deliveries = new Map<string, Delivery>()): DeliveryLog & { deliveries: Map<string, Delivery> } {
  return {
    deliveries,
    create: async (d) => {
      if (deliveries.has(d.delivery_id)) return false;
      deliveries.set(d.delivery_id, d);
      return true;
    },
    get: async (id) => deliveries.get(id) ?? null,
    save: async (d) => void deliveries.set(d.delivery_id, d),
    list: async () => [...deliveries.values()],
  };
}

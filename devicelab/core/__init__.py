"""Pure pieces of device authoring: the live checks of a draft device, boxes from masks, box agreement."""
